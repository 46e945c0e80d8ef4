"""SIGINT / SIGTERM during dispatch.

:func:`run_until_interrupted` runs the dispatch work (channels, compensation) with a signal
receiver beside it. On SIGINT or SIGTERM it records the signal, cancels the work — which
stops every child's process group and lets :func:`mmr.dispatch.runner.dispatch_all` mark
the channels still in flight ``failed`` with reason ``interrupted`` — removes any neutral
directory left behind, and raises ``SystemExit(130)`` (SIGINT) or ``SystemExit(143)``.

Without it, a Ctrl-C under ``anyio.run`` still cancels the work the same way (asyncio turns
it into a cancellation and then a ``KeyboardInterrupt``); only the signal name in the log
and the exit code are then the caller's business.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Awaitable, Callable
from typing import TypeVar

import anyio

from mmr.dispatch.isolation import cleanup_all_postures

T = TypeVar("T")

_received: list[signal.Signals] = []


def received_signal() -> signal.Signals | None:
    """The signal that interrupted dispatch in this process, if any."""
    return _received[-1] if _received else None


def interrupt_log(sig: signal.Signals | None) -> str:
    """The ``<ch>.log`` text of an interrupted channel."""
    if sig is None:
        return "interrupted: dispatch was cancelled"
    return f"interrupted by {sig.name}"


async def run_until_interrupted(work: Callable[[], Awaitable[T]]) -> T:
    """Await ``work()``; a SIGINT/SIGTERM meanwhile cancels it and exits 130/143.

    Signal handlers can only be installed in the main thread; elsewhere ``work()`` is
    simply awaited (the main thread's own handling then applies).
    """
    if threading.current_thread() is not threading.main_thread():
        return await work()
    # The event loop puts the default action back when the receiver closes, not what was
    # there: a handler the caller installed (an embedding program's, a test's) is restored.
    before = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        return await _watched(work)
    finally:
        for sig, handler in before.items():
            if handler is not None:
                signal.signal(sig, handler)


async def _watched(work: Callable[[], Awaitable[T]]) -> T:
    result: list[T] = []
    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with anyio.create_task_group() as group:

            async def watch() -> None:
                async for signum in signals:
                    _received.append(signal.Signals(signum))
                    group.cancel_scope.cancel()
                    return

            async def body() -> None:
                result.append(await work())
                group.cancel_scope.cancel()  # stop the watcher

            group.start_soon(watch)
            group.start_soon(body)
    if result:
        return result[0]
    cleanup_all_postures()
    sig = received_signal() or signal.SIGINT
    raise SystemExit(128 + int(sig))
