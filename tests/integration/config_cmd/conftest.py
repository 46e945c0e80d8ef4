"""Fixtures for ``mmr config`` tests: a real git project as the cwd, the real CLI entry.

``mmr(...)`` runs ``mmr.cli.main.main`` in-process (``tests/cli_runner.py``) and returns its
exit code (``rc``) with the captured stdout and stderr. Local-runtime probes are pointed at
a closed loopback port unless a test starts its own fake runtime server, so the machine's
own services never change a result.
"""

from __future__ import annotations

import functools
import socket
import subprocess
import textwrap
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from mmr.cli.main import main
from mmr.config.paths import user_config_path
from mmr.config_edit import runtime_probe
from mmr.config_edit.runtime_probe import LocalRuntime
from tests.builtin_channels import ENABLED_BUILTINS
from tests.cli_runner import CliResult as Run
from tests.cli_runner import RunCli
from tests.fakes.plugin import fake_cli  # noqa: F401  (re-exported fixture)

#: Switches off the four built-ins that ship enabled, so a test sees only its own channels.
#: A ``channels:`` block switching off the built-ins that ship enabled; tests append
#: their own channels under it.
BUILTINS_OFF = "channels:\n" + "".join(f"  {name}: {{enabled: false}}\n"
                                       for name in ENABLED_BUILTINS)

MmrRunner = Callable[..., Run]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh git work tree, made the current directory."""
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def mmr(project: Path, run_cli: RunCli) -> MmrRunner:
    """``mmr(*args)``: ``mmr <args>`` in ``project``."""
    return functools.partial(run_cli, main)


@pytest.fixture
def project_file(project: Path) -> Path:
    return project / ".mmr.yaml"


@pytest.fixture
def user_file() -> Path:
    return user_config_path()


def write(path: Path, text: str, mode: int | None = None) -> Path:
    """Write dedented YAML ``text`` (parents created) and optionally set its mode."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    if mode is not None:
        path.chmod(mode)
    return path


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(autouse=True)
def quiet_runtimes(monkeypatch: pytest.MonkeyPatch) -> tuple[LocalRuntime, ...]:
    """The default runtimes, with their HTTP probes aimed at a port nobody listens on."""
    port = closed_port()
    runtimes = tuple(
        LocalRuntime(rt.id, rt.command, rt.args, port if rt.port else None, rt.path)
        for rt in runtime_probe.DEFAULT_RUNTIMES
    )
    monkeypatch.setattr(runtime_probe, "DEFAULT_RUNTIMES", runtimes)
    return runtimes


class _Handler(BaseHTTPRequestHandler):
    """Answers GET with the status the server's ``answers`` map gives the path (else 404)."""

    def do_GET(self) -> None:
        status = self.server.answers.get(self.path, 404)  # type: ignore[attr-defined]
        body = b'{"models": []}'
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def fake_runtime_server() -> Iterator[Callable[[dict[str, int]], int]]:
    """Start a loopback HTTP server answering ``{path: status}``; returns its port."""
    servers: list[ThreadingHTTPServer] = []

    def start(answers: dict[str, int]) -> int:
        server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        server.answers = answers  # type: ignore[attr-defined]
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return int(server.server_address[1])

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()
