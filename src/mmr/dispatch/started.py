"""Knowing when every channel of a dispatch has started, to run side work after that.

Work beside the dispatch (the ``--version`` probes, importing the results modules) takes
the interpreter from the channel tasks if it starts with them: each spawn then waits its
turn. :class:`StartWatch` wraps the event sink and sets :attr:`StartWatch.started` once
each channel has reported its first event — ``running`` right after its spawn, or the
final status of one that never spawned (a cached reply, a failed set-up) — so that work
can wait for it (issue 19).
"""

from __future__ import annotations

from collections.abc import Iterable

import anyio

from mmr.dispatch.plan import ChannelEvent, EventSink


class StartWatch:
    """An event sink that forwards to ``sink`` and notes which channels have started.

    Create it inside the event loop that runs the dispatch.
    """

    def __init__(self, channels: Iterable[str], sink: EventSink | None) -> None:
        self._waiting = set(channels)
        self._sink = sink
        self.started = anyio.Event()
        if not self._waiting:
            self.started.set()

    def __call__(self, event: ChannelEvent) -> None:
        self._waiting.discard(event.channel)
        if not self._waiting:
            self.started.set()
        if self._sink is not None:
            self._sink(event)

    def give_up(self) -> None:
        """Stop waiting (the dispatch is over, whatever the channels reported)."""
        self.started.set()
