"""``mmr doctor`` probes HTTP channels over the wire against a real local server."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.doctor.conftest import BUILTINS_OFF, MmrRunner, write
from tests.integration.http.conftest import KEY, FakeServer

RECOVERY = "set TEST_KEY to your local API key"


def http_config(endpoint: str) -> str:
    return BUILTINS_OFF + f"""\
  local:
    kind: http
    endpoint: {endpoint}
    model: test-model
    endpoint_convention: openai-chat
    api_key_env: TEST_KEY
    auth: {{timeout: 0.5, recovery: {RECOVERY}}}
"""


@pytest.fixture
def key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("TEST_KEY", KEY)
    return KEY


def test_reachable_endpoint_is_ok(mmr: MmrRunner, project_file: Path, http_server: FakeServer,
                                  key: str):
    write(project_file, http_config(http_server.url()))
    run = mmr("--format", "json")
    assert run.rc == 0, run.err
    assert run.rows()["local"] == {"name": "local", "status": "ok", "installed": True}
    [request] = http_server.requests
    assert (request.method, request.path) == ("GET", "/v1/models")
    assert request.header("Authorization") == f"Bearer {key}"
    assert key not in run.out + run.err


def test_rejected_key_is_auth_failed_with_recovery(mmr: MmrRunner, project_file: Path,
                                                   http_server: FakeServer, key: str):
    http_server.set("/v1/models", status=401, body="{}")
    write(project_file, http_config(http_server.url()))
    run = mmr()
    assert run.rc == 1
    assert f"  ⚠ local            auth_failed\n      → {RECOVERY}\n" in run.out
    assert key not in run.out + run.err


def test_unset_key_is_auth_failed_without_a_request(mmr: MmrRunner, project_file: Path,
                                                    http_server: FakeServer):
    write(project_file, http_config(http_server.url()))
    row = mmr("--format", "json").rows()["local"]
    assert row == {"name": "local", "status": "auth_failed", "installed": True,
                   "recovery": RECOVERY}
    assert http_server.requests == []


def test_slow_endpoint_is_timeout_naming_the_probe(mmr: MmrRunner, project_file: Path,
                                                  http_server: FakeServer, key: str):
    http_server.set("/v1/models", delay_s=5)
    write(project_file, http_config(http_server.url()))
    run = mmr("--format", "json")
    assert run.rc == 1
    assert run.rows()["local"] == {
        "name": "local", "status": "timeout", "installed": True,
        "recovery": f"auth probe GET {http_server.url('/v1/models')} timed out after "
                    "0.5s (auth.timeout)"}


def test_transport_failure_has_no_recovery(mmr: MmrRunner, project_file: Path,
                                           closed_port_url: str, key: str):
    write(project_file, http_config(closed_port_url))
    run = mmr()
    assert run.rc == 1
    assert "  ⚠ local            auth_failed\n" in run.out
    assert RECOVERY not in run.out
