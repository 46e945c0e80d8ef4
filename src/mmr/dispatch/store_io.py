"""Job-store calls from async code, and progress events.

Store writes are blocking file I/O under a per-job lock that another process (``mmr
reconcile``, a second worker) may hold for a while, so they run in a worker thread and
never stall the other channels' event loop.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import anyio

from mmr.dispatch.plan import ChannelEvent, DispatchContext
from mmr.log import get_logger

T = TypeVar("T")


async def in_thread(func: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    return await anyio.to_thread.run_sync(functools.partial(func, *args, **kwargs))


async def update_status(ctx: DispatchContext, channel: str, **partial: Any) -> None:
    """Merge ``partial`` into the channel's status file (``None`` removes a key)."""
    await in_thread(ctx.store.update_channel, ctx.job_id, channel, **partial)


def emit(ctx: DispatchContext, event: ChannelEvent) -> None:
    """Hand ``event`` to ``ctx.on_event``; a failing display callback never fails a channel."""
    if ctx.on_event is None:
        return
    try:
        ctx.on_event(event)
    except Exception as exc:  # the sink is UI code; dispatch must go on regardless
        get_logger(__name__).warning("dispatch.event_sink_failed", error=repr(exc))
