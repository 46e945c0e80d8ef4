"""What reaches the terminal: the colour decision, and writing a report to stdout in full.

MMR 4.0.1 loses everything past 64 KiB when stdout is a pipe (Node exits with the
pipe's buffer unflushed). mmr writes the report's bytes itself, waiting while the pipe
is full — also when a parent handed us a non-blocking pipe — and flushes before returning.
"""

from __future__ import annotations

import os
import re
import select
import sys
from typing import TextIO

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_FALSE_WORDS = frozenset({"0", "false", "no", "off"})


def use_color(stream: TextIO | None) -> bool:
    """Whether to colour output written to ``stream``.

    Precedence: ``NO_COLOR`` (any non-empty value disables), then ``FORCE_COLOR``
    (non-empty enables, ``0``/``false`` disables), then ``TERM=dumb``, then whether the
    stream is a terminal. Decide once and pass the answer down.
    """
    if os.environ.get("NO_COLOR", ""):
        return False
    force = os.environ.get("FORCE_COLOR", "")
    if force:
        return force.strip().lower() not in _FALSE_WORDS
    if os.environ.get("TERM", "") == "dumb":
        return False
    return is_terminal(stream)


def is_terminal(stream: TextIO | None) -> bool:
    """Whether ``stream`` is a terminal (a person reads it) rather than a pipe or file."""
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def write_report(text: str, *, newline: bool = True) -> None:
    """Write ``text`` (plus a newline) to stdout — all of it — and flush.

    Lone surrogates (from undecodable channel output) become U+FFFD rather than failing
    the write. If the reader has gone away (``mmr results | head``) the rest is dropped
    quietly: the command still exits with its verdict code.
    """
    out = sys.stdout
    payload = text + ("\n" if newline else "")
    try:
        data = payload.encode("utf-8")
    except UnicodeEncodeError:  # only lone surrogates fail; the regex is slow on megabytes
        payload = _LONE_SURROGATE.sub("\ufffd", payload)
        data = payload.encode("utf-8")
    try:
        out.flush()
        fd = out.fileno()
    except (AttributeError, OSError, ValueError):
        # Not backed by a file descriptor (a test's StringIO): the stream is the sink.
        out.write(payload)
        out.flush()
        return
    try:
        write_all(fd, data)
    except BrokenPipeError:
        discard_further_output(fd)


def write_json(value: object) -> int:
    """``value`` as the 2-space JSON document mmr prints (:func:`mmr.formatters.json.dumps`)
    on stdout; returns exit code 0."""
    from mmr.formatters.json import dumps  # it loads the models: only a JSON answer needs it

    write_report(dumps(value))
    return 0


def write_all(fd: int, data: bytes) -> None:
    """``os.write`` until every byte is written, waiting whenever the fd would block."""
    view = memoryview(data)
    while view:
        try:
            written = os.write(fd, view)
        except BlockingIOError:
            select.select([], [fd], [])
            continue
        view = view[written:]


def discard_further_output(fd: int) -> None:
    """Point ``fd`` at /dev/null: its reader has gone, and a later write (or the
    interpreter's final flush) must not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fd)
        os.close(devnull)
    except OSError:
        pass
