"""Walk a unified diff line by line, knowing each line's file and line number.

Works for git diffs (``diff --git`` sections) and plain unified diffs (``---``/``+++``
pairs). Hunk headers give the starting numbers; their counts say where a hunk ends, so a
removed line that reads ``--- x`` inside a hunk is not mistaken for a file header.
Anything the walker does not recognise (a commit message, a malformed hunk) is still
yielded, as an ``other`` line with no file, so callers that scan text miss nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from mmr.unidiff.names import header_name, strip_side_prefix

LineKind = Literal["header", "hunk", "added", "removed", "context", "note", "other"]

#: A hunk header: the header itself, old start and count, new start and count, the rest.
HUNK = re.compile(r"(@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@)(.*)", re.DOTALL)
_HEADER_PREFIXES = ("index ", "old mode ", "new mode ", "deleted file mode ", "new file mode ",
                    "similarity index ", "dissimilarity index ", "rename from ", "rename to ",
                    "copy from ", "copy to ", "Binary files ", "GIT binary patch")


@dataclass(frozen=True)
class DiffLine:
    """One line of the diff split into an untouchable ``prefix`` and its ``content``.

    ``line`` is the new-file number for added and context lines, the old-file number for
    removed ones, and None elsewhere. ``line_ending`` is ``"\\n"``, ``"\\r\\n"`` or ``""``.
    """

    kind: LineKind
    prefix: str
    content: str
    line_ending: str
    file: str | None = None
    line: int | None = None
    starts_file: bool = False

    @property
    def text(self) -> str:
        return self.prefix + self.content

    @property
    def added(self) -> bool:
        return self.kind == "added"

    @property
    def scannable_for_blocks(self) -> bool:
        """Whether the line can hold part of a multi-line block such as a private key."""
        return self.kind in ("added", "removed", "context", "other")


def header_path(rest: str) -> str | None:
    """The path of a ``--- ``/``+++ `` header (after that prefix): unquoted, ``a/``/``b/``
    and a leading ``./`` removed (as finding locations are keyed), a plain diff's timestamp
    dropped; None for ``/dev/null``."""
    path = header_name(rest)
    if path == "/dev/null":
        return None
    path = strip_side_prefix(path)
    while path.startswith("./"):
        path = path[2:]
    return path


def _split_lines(text: str) -> Iterator[tuple[str, str]]:
    """(line, ending) pairs, splitting on ``\\n`` only: a diff line may hold ``\\f`` or
    ``\\u2028``, which ``str.splitlines`` would treat as line breaks."""
    pieces = text.split("\n")
    for index, piece in enumerate(pieces):
        last = index == len(pieces) - 1
        if last and piece == "":
            return
        line, ending = piece, "" if last else "\n"
        if line.endswith("\r"):
            line, ending = line[:-1], "\r" + ending
        yield line, ending


class _Walker:
    def __init__(self) -> None:
        self.old_path: str | None = None
        self.new_path: str | None = None
        self.old_no = self.new_no = 0
        self.old_left = self.new_left = 0

    def classify(self, raw: str, ending: str) -> DiffLine:
        entry = self._hunk_line(raw, ending) if self.old_left or self.new_left else None
        if entry is not None:
            return entry
        self.old_left = self.new_left = 0
        return self._outside_hunk(raw, ending)

    def _hunk_line(self, raw: str, ending: str) -> DiffLine | None:
        first = raw[:1]
        if first == "+" and self.new_left:
            entry = DiffLine("added", "+", raw[1:], ending, self.new_path, self.new_no)
            self.new_no, self.new_left = self.new_no + 1, self.new_left - 1
        elif first == "-" and self.old_left:
            entry = DiffLine("removed", "-", raw[1:], ending, self.old_path or self.new_path,
                             self.old_no)
            self.old_no, self.old_left = self.old_no + 1, self.old_left - 1
        elif first in (" ", "") and self.old_left and self.new_left:
            entry = DiffLine("context", first, raw[1:], ending, self.new_path or self.old_path,
                             self.new_no)
            self.old_no, self.old_left = self.old_no + 1, self.old_left - 1
            self.new_no, self.new_left = self.new_no + 1, self.new_left - 1
        elif first == "\\":
            entry = DiffLine("note", "\\", raw[1:], ending, self.new_path or self.old_path)
        else:
            return None
        return entry

    def _outside_hunk(self, raw: str, ending: str) -> DiffLine:
        hunk = HUNK.fullmatch(raw)
        if hunk is not None:
            self.old_no, self.new_no = int(hunk.group(2)), int(hunk.group(4))
            self.old_left = int(hunk.group(3)) if hunk.group(3) is not None else 1
            self.new_left = int(hunk.group(5)) if hunk.group(5) is not None else 1
            return DiffLine("hunk", hunk.group(1), hunk.group(6), ending,
                            self.new_path or self.old_path)
        header = self._file_header(raw, ending)
        if header is not None:
            return header
        if raw.startswith("\\"):
            return DiffLine("note", "\\", raw[1:], ending, self.new_path or self.old_path)
        prefix = raw[:1] if raw[:1] in ("+", "-", " ") else ""
        return DiffLine("other", prefix, raw[len(prefix):], ending)

    def _file_header(self, raw: str, ending: str) -> DiffLine | None:
        if raw.startswith("diff "):
            self.old_path = self.new_path = None
            return DiffLine("header", "", raw, ending, starts_file=True)
        if raw.startswith("--- "):
            self.old_path, self.new_path = header_path(raw[4:]), None
            return DiffLine("header", "", raw, ending, self.old_path, starts_file=True)
        if raw.startswith("+++ "):
            self.new_path = header_path(raw[4:])
            return DiffLine("header", "", raw, ending, self.new_path or self.old_path)
        if raw.startswith(_HEADER_PREFIXES):
            return DiffLine("header", "", raw, ending)
        return None

def walk_diff(diff_text: str) -> Iterator[DiffLine]:
    """Every line of ``diff_text``, classified; ``"".join(l.text + l.line_ending)`` is the
    input again."""
    walker = _Walker()
    for raw, ending in _split_lines(diff_text):
        yield walker.classify(raw, ending)
