"""Is a local model runtime here? Used by ``mmr config init``.

Each runtime is probed two ways at once, each within the same limit (1 s by default):

- its program, as MMR 4.0.1 does (``ollama list``, ``lms ps`` …): spawned without a
  shell, all output discarded; detected when it exits 0 in time (a timeout sends SIGTERM,
  then SIGKILL 250 ms later);
- its usual HTTP port on the loopback interface (a server started from a desktop app or
  a container has no program on ``PATH``): detected on any 2xx answer from 127.0.0.1,
  asked without proxies.

The runtime list is a parameter, so tests point the probes at their own ports.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import anyio
import httpx

from mmr.process.subprocess import ProcessRequest, run_process

PROBE_TIMEOUT_MS = 1000
KILL_GRACE_S = 0.25
LOOPBACK = "127.0.0.1"


@dataclass(frozen=True)
class LocalRuntime:
    """One runtime ``config init`` looks for; ``port=None`` means no HTTP probe."""

    id: str
    command: str
    args: tuple[str, ...]
    port: int | None = None
    path: str = "/"


#: The runtimes MMR 4.0.1 looks for, in the order ``config init`` prints them.
DEFAULT_RUNTIMES: tuple[LocalRuntime, ...] = (
    LocalRuntime("ollama", "ollama", ("list",), 11434, "/api/tags"),
    LocalRuntime("lms", "lms", ("ps",), 1234, "/v1/models"),
    LocalRuntime("llama-server", "llama-server", ("--help",), 8080, "/health"),
    LocalRuntime("local-ai-delegate", "local-ai-delegate", ("--version",)),
)


async def probe_program(command: str, args: Sequence[str], timeout_ms: int) -> bool:
    """Run ``command args…`` (no shell, output discarded); detected when it exits 0 in time."""
    outcome = await run_process(ProcessRequest((command, *args), timeout_s=timeout_ms / 1000,
                                               stderr="suppress", max_capture_bytes=0,
                                               kill_grace_s=KILL_GRACE_S, label="runtime-probe"))
    return outcome.succeeded


async def probe_http(port: int, path: str, timeout_s: float) -> bool:
    """Whether ``http://127.0.0.1:port/path`` answers 2xx in time."""
    try:
        async with httpx.AsyncClient(timeout=timeout_s, trust_env=False,
                                     follow_redirects=False) as client:
            response = await client.get(f"http://{LOOPBACK}:{port}{path}")
    except httpx.HTTPError:
        return False
    return 200 <= response.status_code < 300


async def _detect(runtime: LocalRuntime, timeout_ms: int) -> bool:
    found: list[bool] = []

    async def program() -> None:
        found.append(await probe_program(runtime.command, runtime.args, timeout_ms))

    async def http(port: int) -> None:
        found.append(await probe_http(port, runtime.path, timeout_ms / 1000))

    async with anyio.create_task_group() as group:
        group.start_soon(program)
        if runtime.port is not None:
            group.start_soon(http, runtime.port)
    return any(found)


def detect_runtimes(runtimes: Sequence[LocalRuntime] | None = None, *,
                    timeout_ms: int = PROBE_TIMEOUT_MS) -> dict[str, bool]:
    """Probe every runtime concurrently; ``{id: detected}`` in the given order."""
    chosen = DEFAULT_RUNTIMES if runtimes is None else tuple(runtimes)
    results: dict[str, bool] = {}

    async def one(runtime: LocalRuntime) -> None:
        results[runtime.id] = await _detect(runtime, timeout_ms)

    async def run_all() -> None:
        async with anyio.create_task_group() as group:
            for runtime in chosen:
                group.start_soon(one, runtime)

    anyio.run(run_all)
    return {runtime.id: results[runtime.id] for runtime in chosen}
