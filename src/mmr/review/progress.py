"""Per-channel progress on stderr while a review dispatches (00-overview: "a 5-minute review
should not look hung").

On a terminal a rich ``Live`` table shows each channel's state and a ticking elapsed
time; anywhere else (CI logs, pipes) each state change is one plain line, e.g.
``[mmr] codex: completed (12.3s)``. stdout is never touched. Colour is decided by the
caller (``NO_COLOR`` and friends, :func:`mmr.cli.output.use_color`) and passed in.
Events may arrive from the dispatcher's event loop or from worker threads, so the state
is guarded by a lock.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

from mmr.dispatch.plan import ChannelEvent
from mmr.models import TERMINAL_STATUSES

if TYPE_CHECKING:
    from rich.console import Console
    from rich.live import Live

_STYLES = {"completed": "green", "running": "cyan", "dispatched": "dim",
           "not_installed": "yellow", "skipped": "yellow"}


@dataclass
class _Row:
    status: str = "dispatched"
    started: float | None = None
    elapsed_s: float | None = None
    attempt: int = 1
    reason: str | None = None

    def elapsed(self, now: float) -> str:
        if self.status in TERMINAL_STATUSES:
            return f"{self.elapsed_s:.1f}s" if self.elapsed_s else ""
        if self.started is not None:
            return f"{now - self.started:.1f}s"
        return ""


def plain_line(event: ChannelEvent) -> str:
    """The one-line form of a state change, for logs and non-terminal stderr."""
    line = f"[mmr] {event.channel}: {event.status}"
    if event.status in TERMINAL_STATUSES and event.elapsed_s:
        line += f" ({event.elapsed_s:.1f}s)"
    if event.reason:
        line += f" [{event.reason}]"
    if event.attempt > 1:
        line += f" (attempt {event.attempt})"
    return line


class ProgressDisplay:
    """An event sink for the dispatcher that draws channel progress on ``stream``."""

    def __init__(self, stream: TextIO, *, live: bool, color: bool) -> None:
        self.stream = stream
        self.live = live
        self.color = color
        self._rows: dict[str, _Row] = {}
        self._lock = threading.Lock()
        self._live: Live | None = None

    def __call__(self, event: ChannelEvent) -> None:
        with self._lock:
            row = self._rows.setdefault(event.channel, _Row())
            row.status, row.attempt, row.reason = event.status, event.attempt, event.reason
            if event.status == "running" and row.started is None:
                row.started = time.monotonic()
            if event.status in TERMINAL_STATUSES:
                row.elapsed_s = event.elapsed_s
        if self._live is None:
            self._write(plain_line(event))

    @contextmanager
    def showing(self, channels: Sequence[str]) -> Iterator[None]:
        """Show ``channels`` (more may appear, e.g. compensating passes) while dispatching."""
        with self._lock:
            for name in channels:
                self._rows.setdefault(name, _Row())
        if not self.live:
            yield
            return
        from rich.live import Live

        with Live(self, console=self._console(), refresh_per_second=8, transient=False,
                  redirect_stdout=False, redirect_stderr=True) as live:
            self._live = live
            try:
                yield
            finally:
                self._live = None
                live.refresh()

    def __rich__(self) -> Any:
        """The table rich redraws on every refresh."""
        from rich.table import Table

        table = Table.grid(padding=(0, 2))
        now = time.monotonic()
        with self._lock:
            rows = list(self._rows.items())
        for name, row in rows:
            state = row.status + (f" [{row.reason}]" if row.reason else "")
            if row.attempt > 1:
                state += f" (attempt {row.attempt})"
            table.add_row(name, state, row.elapsed(now),
                          style=_STYLES.get(row.status, "red") if self.color else None)
        return table

    def _console(self) -> Console:
        from rich.console import Console

        return Console(file=self.stream, force_terminal=True, no_color=not self.color,
                       highlight=False)

    def _write(self, line: str) -> None:
        try:
            self.stream.write(line + "\n")
            self.stream.flush()
        except (OSError, ValueError):
            pass  # a closed stderr must not fail the review


def progress_for(stream: TextIO, *, quiet: bool, color: bool) -> ProgressDisplay | None:
    """The display for ``stream``: live on a terminal (not ``TERM=dumb``), plain lines
    elsewhere, none with ``--quiet``."""
    if quiet:
        return None
    try:
        terminal = stream.isatty()
    except (AttributeError, ValueError, OSError):
        terminal = False
    live = terminal and os.environ.get("TERM", "") != "dumb"
    return ProgressDisplay(stream, live=live, color=color)
