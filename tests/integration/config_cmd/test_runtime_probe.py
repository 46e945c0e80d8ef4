"""The local-runtime probes ``config init`` uses: real processes and a real loopback server."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

import anyio

from mmr.config_edit.runtime_probe import (
    LocalRuntime,
    ProbeResult,
    detect_runtimes,
    probe_http,
    probe_program,
)
from tests.fakes.plugin import FakeCliFactory
from tests.integration.config_cmd.conftest import closed_port


def probe_runtime(command: str, args: list[str], timeout_ms: int) -> ProbeResult:
    return anyio.run(probe_program, command, args, timeout_ms)


def test_program_exiting_0_is_detected():
    assert probe_runtime(sys.executable, ["--version"], 1000) == ProbeResult(True)


def test_missing_program_and_failing_exit(fake_cli: FakeCliFactory):
    missing = probe_runtime("mmr-test-absent-runtime", ["list"], 1000)
    assert missing.detected is False and "ENOENT" in (missing.reason or "")
    failing = fake_cli("failing-runtime", exit_code=3)
    assert probe_runtime(str(failing.path), [], 1000) == ProbeResult(False, "exit 3")


def test_a_hanging_program_times_out_quickly(fake_cli: FakeCliFactory):
    sleeper = fake_cli("sleepy-runtime", sleep=10, ignore_stdin=True)
    started = time.monotonic()
    result = probe_runtime(str(sleeper.path), [], 200)
    assert result == ProbeResult(False, "timeout")
    assert time.monotonic() - started < 2.0


def test_rejected_requests_spawn_nothing():
    assert probe_runtime("ollama; rm -rf /", [], 1000) == ProbeResult(False, "invalid command name")
    assert probe_runtime(sys.executable, [], 2_147_483_648) == ProbeResult(False, "invalid timeout")
    assert probe_runtime(sys.executable, [], 0) == ProbeResult(False, "invalid timeout")
    assert probe_runtime(sys.executable, ["a\0b"], 1000) == ProbeResult(False, "invalid argument")


def test_http_probe_needs_a_2xx_from_a_loopback_host(
        fake_runtime_server: Callable[[dict[str, int]], int]):
    port = fake_runtime_server({"/api/tags": 200, "/busy": 503})
    assert anyio.run(probe_http, "127.0.0.1", port, "/api/tags", 1.0) is True
    assert anyio.run(probe_http, "127.0.0.1", port, "/busy", 1.0) is False
    assert anyio.run(probe_http, "127.0.0.1", port, "/other", 1.0) is False
    assert anyio.run(probe_http, "127.0.0.1", closed_port(), "/api/tags", 1.0) is False
    # Not loopback: never contacted, however the address would answer.
    assert anyio.run(probe_http, "192.0.2.1", port, "/api/tags", 1.0) is False


def test_runtimes_are_probed_concurrently_and_reported_in_order(
        fake_cli: FakeCliFactory, fake_runtime_server: Callable[[dict[str, int]], int]):
    slow_a = fake_cli("slow-a", sleep=10, ignore_stdin=True)
    slow_b = fake_cli("slow-b", sleep=10, ignore_stdin=True)
    port = fake_runtime_server({"/v1/models": 200})
    runtimes = [
        LocalRuntime("a", str(slow_a.path), (), closed_port(), "/"),
        LocalRuntime("b", str(slow_b.path), (), port, "/v1/models"),
        LocalRuntime("c", sys.executable, ("--version",)),
    ]
    started = time.monotonic()
    found = detect_runtimes(runtimes, timeout_ms=700)
    assert list(found.items()) == [("a", False), ("b", True), ("c", True)]
    assert time.monotonic() - started < 1.8  # two 0.7 s timeouts, run side by side
