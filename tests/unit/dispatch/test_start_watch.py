"""StartWatch: side work beside a dispatch waits until every channel has started (issue 19)."""

from __future__ import annotations

import anyio

from mmr.dispatch.plan import ChannelEvent
from mmr.dispatch.started import StartWatch


def test_started_once_every_channel_reported_and_events_forwarded() -> None:
    seen: list[tuple[str, str]] = []

    async def main() -> list[bool]:
        watch = StartWatch(["a", "b"], lambda e: seen.append((e.channel, e.status)))
        states = [watch.started.is_set()]
        watch(ChannelEvent("a", "running"))
        watch(ChannelEvent("a", "completed"))
        states.append(watch.started.is_set())
        watch(ChannelEvent("compensating-x", "running"))  # not one it waits for
        states.append(watch.started.is_set())
        watch(ChannelEvent("b", "failed"))  # a channel that never spawned
        states.append(watch.started.is_set())
        return states

    assert anyio.run(main) == [False, False, False, True]
    assert seen == [("a", "running"), ("a", "completed"), ("compensating-x", "running"),
                    ("b", "failed")]


def test_no_channels_is_started_at_once_and_give_up_releases_waiters() -> None:
    async def main() -> tuple[bool, bool]:
        empty = StartWatch([], None)
        waiting = StartWatch(["a"], None)
        waiting(ChannelEvent("other", "running"))  # no sink: nothing to forward to
        before = waiting.started.is_set()
        waiting.give_up()
        with anyio.fail_after(5):
            await waiting.started.wait()
        return empty.started.is_set() and not before, waiting.started.is_set()

    assert anyio.run(main) == (True, True)
