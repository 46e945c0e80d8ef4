"""Find the command examples in README.md and docs/: every line of a fenced sh/bash/console
block that runs ``mmr`` (``mmr …``, ``… | mmr …``, ``cmd && mmr …``, ``VAR=x mmr …``).

Pure comment lines and commands that never start ``mmr`` are not examples. A trailing
``# comment`` is the example's explanation, not part of its command; ``\\`` continues a
command on the next line; in a ``console`` block only ``$ `` lines are commands.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHELL_LANGUAGES = frozenset({"sh", "bash", "shell", "console", "zsh"})
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*([\w+-]*)")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_OPERATORS = frozenset({"&&", "||", ";", "|", "&", "(", ")"})


@dataclass(frozen=True)
class Example:
    """One documented command line."""

    file: str  #: relative to the project root, e.g. ``docs/sarif.md``
    line: int
    command: str  #: whitespace-normalised, trailing comment removed
    comment: str  #: the trailing ``# …`` explanation, without the ``#``

    @property
    def key(self) -> str:
        return f"{self.file}: {self.command}"


def documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def examples(paths: list[Path] | None = None, root: Path = ROOT) -> list[Example]:
    found: list[Example] = []
    for path in documents() if paths is None else paths:
        rel = path.relative_to(root).as_posix()
        for number, line, language in _block_lines(path.read_text(encoding="utf-8")):
            text = line.lstrip()
            if language == "console":
                if not text.startswith("$ "):
                    continue
                text = text[2:]
            command, comment = split_comment(text)
            command = " ".join(command.split())
            if command and runs_mmr(command):
                found.append(Example(rel, number, command, comment))
    return found


def _block_lines(text: str) -> list[tuple[int, str, str]]:
    """``(line number, logical line, language)`` for each line inside a shell fence."""
    out: list[tuple[int, str, str]] = []
    fence: str | None = None
    language = ""
    pending: tuple[int, str] | None = None
    for number, raw in enumerate(text.splitlines(), 1):
        match = _FENCE.match(raw)
        if fence is None:
            if match:
                fence, language = match.group(1), match.group(2).lower()
            continue
        if match and match.group(1).startswith(fence) and not match.group(2):
            fence, pending = None, None
            continue
        if language not in SHELL_LANGUAGES:
            continue
        start, line = pending if pending else (number, "")
        line += raw.strip() if pending else raw
        if line.endswith("\\"):
            pending = (start, line[:-1] + " ")
            continue
        pending = None
        out.append((start, line, language))
    return out


def split_comment(line: str) -> tuple[str, str]:
    """Split off a ``#`` comment that starts outside quotes after whitespace (or at 0)."""
    quote: str | None = None
    for index, char in enumerate(line):
        if quote:
            if char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or line[index - 1].isspace()):
            return line[:index].rstrip(), line[index + 1:].strip()
    return line.rstrip(), ""


def runs_mmr(command: str) -> bool:
    """True when some simple command of the line starts with the word ``mmr``."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.commenters = ""
    try:
        tokens = list(lexer)
    except ValueError:  # unbalanced quotes: fall back to the plain words
        tokens = command.split()
    starts = True
    for token in tokens:
        if token in _OPERATORS:
            starts = True
        elif starts and not _ASSIGNMENT.match(token):
            if token == "mmr":
                return True
            starts = False
    return False
