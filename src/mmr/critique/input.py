"""The artifact to critique: a file, standard input (``-``), or mmr's ``--text``.

A path that cannot be read is an error, never text: ``mmr critique "my design.md"``
with a typo must not critique the file name. Inline text has its own flag instead.
Every failure here is the command's only non-zero outcome (exit 1).
"""

from __future__ import annotations

import errno
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from mmr.errors import MmrError

NO_INPUT = "No input given. Pass a file path (mmr critique design.md) or - to read stdin."
STDIN_SOURCE = "stdin"
INLINE_SOURCE = "inline"


class CritiqueInputError(MmrError):
    """The input is missing, unreadable or empty (exit 1)."""


@dataclass(frozen=True)
class Artifact:
    """The text under critique and how the report names it."""

    source: str
    text: str


def read_artifact(path: str | None, *, text: str | None = None,
                  stdin: BinaryIO | None = None) -> Artifact:
    """Resolve the input; raises :class:`CritiqueInputError` with a one-line message."""
    if text is not None:
        return _non_empty(Artifact(INLINE_SOURCE, text))
    if path is None:
        raise CritiqueInputError(NO_INPUT)
    if path == "-":
        return _non_empty(Artifact(STDIN_SOURCE, _read_stdin(stdin)))
    return _non_empty(Artifact(path, _read_file(path)))


def _non_empty(artifact: Artifact) -> Artifact:
    if not artifact.text.strip():
        raise CritiqueInputError(f"Critique input is empty: {artifact.source}")
    return artifact


def _read_stdin(stdin: BinaryIO | None) -> str:
    stream = stdin if stdin is not None else sys.stdin.buffer
    return stream.read().decode("utf-8", errors="replace")


def _read_file(path: str) -> str:
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise CritiqueInputError(os_error_message(exc, path)) from None
    return data.decode("utf-8", errors="replace")


def os_error_message(exc: OSError, path: str) -> str:
    """``ENOENT: no such file or directory, open 'x.md'`` (MMR 4.0.1's wording) + the fix."""
    code = errno.errorcode.get(exc.errno or 0, "EIO")
    reason = (exc.strerror or "cannot read").lower()
    return (f"{code}: {reason}, open '{path}' — pass a readable file, - to read stdin, "
            "or --text for inline text")
