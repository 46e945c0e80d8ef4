"""Per-channel progress on stderr while a review dispatches (00-overview: "a 5-minute review
should not look hung").

On a terminal a rich ``Live`` table shows each channel's state and a ticking elapsed
time, and a last row ``still waiting on: a, b`` with the review's own elapsed time; a state
change that comes before the table (the gate's ``not_installed`` …) is drawn by the table
only, never also as a line. Anywhere else (CI logs, pipes) each state change is one plain
line, e.g. ``[mmr] codex: completed (12.3s)``, and every :data:`HEARTBEAT_S` without one a
``[mmr] still waiting on: a, b (1m30s)`` line says the review is alive. stdout is never
touched. Colour is decided by the
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
from typing import Any, TextIO

from rich.console import Console, Group
from rich.live import Live
from rich.table import Table
from rich.text import Text

from mmr.dispatch.plan import ChannelEvent
from mmr.models import TERMINAL_STATUSES
from mmr.review.run import HEARTBEAT_S

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
        self._started: float | None = None
        #: The table has been drawn and closed: later events are plain lines again.
        self._closed = False
        self._beat = threading.Event()

    def __call__(self, event: ChannelEvent) -> None:
        with self._lock:
            row = self._rows.setdefault(event.channel, _Row())
            row.status, row.attempt, row.reason = event.status, event.attempt, event.reason
            if event.status == "running" and row.started is None:
                row.started = time.monotonic()
            if event.status in TERMINAL_STATUSES:
                row.elapsed_s = event.elapsed_s
        if not self.live or self._closed:
            self._write(plain_line(event))
            self._beat.set()  # a line was written: the next heartbeat waits a full period

    @contextmanager
    def showing(self, channels: Sequence[str]) -> Iterator[None]:
        """Show ``channels`` (more may appear, e.g. compensating passes) while dispatching."""
        with self._lock:
            for name in channels:
                self._rows.setdefault(name, _Row())
        self._started = time.monotonic()
        if not self.live:
            with self._heartbeat():
                yield
            return

        with Live(self, console=self._console(), refresh_per_second=8, transient=False,
                  redirect_stdout=False, redirect_stderr=True) as live:
            try:
                yield
            finally:
                self._closed = True
                live.refresh()

    def waiting_on(self) -> list[str]:
        with self._lock:
            return [name for name, row in self._rows.items()
                    if row.status not in TERMINAL_STATUSES]

    def waiting_line(self) -> str | None:
        """``still waiting on: a, b (1m05s)``; None when nothing is pending."""
        waiting = self.waiting_on()
        if not waiting or self._started is None:
            return None
        elapsed = _clock(time.monotonic() - self._started)
        return f"still waiting on: {', '.join(waiting)} ({elapsed})"

    @contextmanager
    def _heartbeat(self) -> Iterator[None]:
        """Plain mode: a ``[mmr] still waiting on: …`` line every quiet :data:`HEARTBEAT_S`."""
        stop = threading.Event()

        def beat() -> None:
            while not stop.is_set():
                self._beat.clear()
                if self._beat.wait(HEARTBEAT_S) or stop.is_set():
                    continue  # something was written meanwhile: wait a full period again
                line = self.waiting_line()
                if line is not None:
                    self._write(f"[mmr] {line}")

        thread = threading.Thread(target=beat, name="mmr-heartbeat", daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            self._beat.set()
            thread.join()

    def __rich__(self) -> Any:
        """The table rich redraws on every refresh."""
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
        waiting = self.waiting_line()
        if waiting is None:
            return table

        return Group(table, Text(waiting, style="dim" if self.color else ""))

    def _console(self) -> Console:
        return Console(file=self.stream, force_terminal=True, no_color=not self.color,
                       highlight=False)

    def _write(self, line: str) -> None:
        try:
            self.stream.write(line + "\n")
            self.stream.flush()
        except (OSError, ValueError):
            pass  # a closed stderr must not fail the review


def _clock(seconds: float) -> str:
    """``42s``, ``1m05s``."""
    whole = int(seconds)
    return f"{whole}s" if whole < 60 else f"{whole // 60}m{whole % 60:02d}s"


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
