"""The dispatch's signal watch leaves the handlers it found."""

from __future__ import annotations

import signal
from types import FrameType

import anyio

from mmr.dispatch.interrupts import run_until_interrupted


def _mine(signum: int, frame: FrameType | None) -> None:  # pragma: no cover - never sent
    pass


def test_the_handlers_before_the_watch_are_back_after_it() -> None:
    """asyncio puts SIG_DFL back when its receiver closes; a handler the caller had
    installed before the dispatch must still be there after it."""
    before = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGTERM, _mine)
    try:
        async def work() -> int:
            return 7

        assert anyio.run(run_until_interrupted, work) == 7
        assert signal.getsignal(signal.SIGTERM) is _mine
        assert signal.getsignal(signal.SIGINT) is before[1]
    finally:
        signal.signal(signal.SIGTERM, before[0])
