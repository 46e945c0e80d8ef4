"""The HTTP tests' local server fixtures, for the end-to-end tests that talk to one."""

from tests.integration.http.conftest import (  # noqa: F401  (re-exported fixtures)
    _no_proxies,
    http_server,
)
