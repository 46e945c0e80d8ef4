"""The local-runtime probes ``config init`` uses: real processes and a real loopback server."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

import anyio

from mmr.config_edit.runtime_probe import (
    LocalRuntime,
    detect_runtimes,
    probe_http,
    probe_program,
)
from tests.fakes.plugin import FakeCliFactory
from tests.integration.config_cmd.conftest import closed_port


def probe_runtime(command: str, args: list[str], timeout_ms: int) -> bool:
    return anyio.run(probe_program, command, args, timeout_ms)


def test_program_exiting_0_is_detected():
    assert probe_runtime(sys.executable, ["--version"], 1000) is True


def test_missing_program_and_failing_exit(fake_cli: FakeCliFactory):
    assert probe_runtime("mmr-test-absent-runtime", ["list"], 1000) is False
    failing = fake_cli("failing-runtime", exit_code=3)
    assert probe_runtime(str(failing.path), [], 1000) is False


def test_a_hanging_program_times_out_quickly(fake_cli: FakeCliFactory):
    sleeper = fake_cli("sleepy-runtime", sleep=10, ignore_stdin=True)
    started = time.monotonic()
    assert probe_runtime(str(sleeper.path), [], 200) is False
    assert time.monotonic() - started < 2.0


def test_http_probe_needs_a_2xx(
        fake_runtime_server: Callable[[dict[str, int]], int]):
    port = fake_runtime_server({"/api/tags": 200, "/busy": 503})
    assert anyio.run(probe_http, port, "/api/tags", 1.0) is True
    assert anyio.run(probe_http, port, "/busy", 1.0) is False
    assert anyio.run(probe_http, port, "/other", 1.0) is False
    assert anyio.run(probe_http, closed_port(), "/api/tags", 1.0) is False


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
