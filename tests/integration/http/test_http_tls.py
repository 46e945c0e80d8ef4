"""TLS certificates are verified; a trusted CA file (``SSL_CERT_FILE``) is honoured."""

from __future__ import annotations

import pytest

from tests.integration.http.conftest import (
    KEY,
    FakeServer,
    TlsFiles,
    http_plan,
    openai_envelope,
    run_plan,
)


def test_an_untrusted_certificate_is_request_failed(https_server: FakeServer) -> None:
    result = run_plan(http_plan(https_server.url()))

    assert (result.status, result.error) == ("failed", "request failed: TLS failure")
    assert "CERTIFICATE_VERIFY_FAILED" in result.log
    assert https_server.requests == []  # nothing, the key included, crossed the wire
    assert KEY not in result.log


def test_a_certificate_from_ssl_cert_file_is_trusted(https_server: FakeServer,
                                                     tls_files: TlsFiles,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(tls_files.cert))
    https_server.set(body=openai_envelope("secure reply"))

    result = run_plan(http_plan(https_server.url()))

    assert (result.status, result.content) == ("completed", "secure reply")
    assert https_server.requests[0].header("authorization") == f"Bearer {KEY}"
