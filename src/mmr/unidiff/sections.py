"""Split a unified diff into per-file sections and drop those matching ``diff_exclude``.

Used for diffs mmr did not build itself (``--diff FILE|-``, ``gh pr diff``); a diff
built with git gets the same patterns as ``:(exclude)`` pathspecs instead.
Sections start at ``diff ...`` lines, or at a ``--- ``/``+++ `` pair in a plain
``diff -u`` diff. Hunks are consumed by their line counts, so a removed line that reads
``-- x`` is never mistaken for a file header.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase

from mmr.unidiff.names import git_header_names, header_name, unquote
from mmr.unidiff.walk import HUNK

__all__ = ["FileSection", "exclude_sections", "normalize_pattern", "pathspec_matches",
           "split_sections", "unquote"]

_GIT_OPENERS = ("diff --git ", "diff --cc ", "diff --combined ")
_NAME_LINES = ("rename from ", "rename to ", "copy from ", "copy to ")
_PREFIX_LETTERS = "abciwo"  # git's a/ b/ and its mnemonic prefixes


@dataclass
class FileSection:
    """The lines of one file's diff and the paths its headers name (``a/``/``b/`` removed)."""

    lines: list[str] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    git_format: bool = False
    saw_old_header: bool = False
    in_body: bool = False
    new_path: str | None = None

    @property
    def display_path(self) -> str:
        return self.new_path or (self.paths[0] if self.paths else "?")

    def add_path(self, path: str | None, *, new: bool = False) -> None:
        if path is None or path == "/dev/null":
            return
        while path.startswith("./"):
            path = path[2:]
        if path and path not in self.paths:
            self.paths.append(path)
        if new and path:
            self.new_path = path


def _strip_prefix(path: str, letter: str) -> str:
    return path[2:] if letter and path[:2] == f"{letter}/" else path


class _Splitter:
    def __init__(self) -> None:
        self.preamble: list[str] = []
        self.sections: list[FileSection] = []
        self.current: FileSection | None = None
        self.prefixes = ("a", "b")
        self.left = [0, 0]  # old and new lines still expected in the current hunk

    def feed(self, line: str, following: str) -> None:
        if self.current is not None and (self.left[0] > 0 or self.left[1] > 0):
            if self._consume_body(self.current, line):
                return
            self.left = [0, 0]  # malformed hunk: read the line as a header
        if self._opens_section(line, following):
            self.current = FileSection(git_format=line.startswith(_GIT_OPENERS))
            self.sections.append(self.current)
            self.prefixes = ("a", "b")
        if self.current is None:
            self.preamble.append(line)
            return
        self.current.lines.append(line)
        hunk = HUNK.match(line)
        if hunk:
            self.current.in_body = True
            self.left = [int(hunk[3] or 1), int(hunk[5] or 1)]
        elif not self.current.in_body:
            self._header(self.current, line.rstrip("\r\n"))

    def _consume_body(self, section: FileSection, line: str) -> bool:
        kind = line[:1]
        if kind not in (" ", "-", "+", "\\") and line.strip("\r\n"):
            return False
        if kind not in {"+", "\\"}:
            self.left[0] -= 1
        if kind not in {"-", "\\"}:
            self.left[1] -= 1
        section.lines.append(line)
        return True

    def _opens_section(self, line: str, following: str) -> bool:
        if line.startswith("diff "):
            return True
        if line.startswith("--- ") and following.startswith("+++ "):
            current = self.current
            return current is None or current.saw_old_header or current.in_body
        return False

    def _header(self, section: FileSection, line: str) -> None:
        if line.startswith("diff --git "):
            names = git_header_names(line[len("diff --git "):])
            if names:
                old, new = names
                prefixed = (old[1:2] == new[1:2] == "/" and old[0] != new[0]
                            and old[0] in _PREFIX_LETTERS and new[0] in _PREFIX_LETTERS)
                self.prefixes = (old[0], new[0]) if prefixed else ("", "")
                section.add_path(_strip_prefix(old, self.prefixes[0]))
                section.add_path(_strip_prefix(new, self.prefixes[1]), new=True)
        elif line.startswith(("diff --cc ", "diff --combined ")):
            section.add_path(header_name(line.split(" ", 2)[2]), new=True)
        elif line.startswith(("--- ", "+++ ")):
            is_new = line.startswith("+")
            section.saw_old_header = section.saw_old_header or not is_new
            path = header_name(line[4:])
            if section.git_format:
                section.add_path(_strip_prefix(path, self.prefixes[is_new]), new=is_new)
            else:
                # A plain diff's first component is a directory of the diff's own choosing.
                section.add_path(path, new=is_new)
                section.add_path(path.split("/", 1)[1] if "/" in path else None)
        elif line.startswith(_NAME_LINES):
            value = line.split(" ", 2)[2]
            name = unquote(value)[0] if value.startswith('"') else value
            section.add_path(name, new=line.startswith(("rename to ", "copy to ")))


def split_sections(diff_text: str) -> tuple[str, list[FileSection]]:
    """The text before the first file, and one section per file, in order."""
    splitter = _Splitter()
    lines = diff_text.splitlines(keepends=True)
    for index, line in enumerate(lines):
        splitter.feed(line, lines[index + 1] if index + 1 < len(lines) else "")
    return "".join(splitter.preamble), splitter.sections


def normalize_pattern(pattern: str) -> str:
    """A ``diff_exclude`` entry relative to the repository root."""
    return pattern.strip().lstrip("/").removeprefix("./")


def pathspec_matches(pattern: str, path: str) -> bool:
    """git's default pathspec rule: ``fnmatch`` where ``*`` crosses ``/``; a pattern
    without wildcards also matches as a leading directory."""
    pattern = normalize_pattern(pattern)
    if not pattern:
        return False
    if not any(char in pattern for char in "*?["):
        base = pattern.rstrip("/")
        return path == base or path.startswith(base + "/")
    return fnmatchcase(path, pattern)


def exclude_sections(diff_text: str, patterns: Sequence[str]) -> tuple[str, list[str]]:
    """``diff_text`` without the files whose old or new path matches a pattern.

    Returns the remaining text (unchanged when nothing matched) and the paths dropped.
    """
    if not patterns:
        return diff_text, []
    return _drop_sections(diff_text, lambda path: any(pathspec_matches(p, path)
                                                       for p in patterns))


def exclude_files(diff_text: str, paths: Collection[str]) -> tuple[str, list[str]]:
    """``diff_text`` without the files at exactly these paths (names, not patterns: a name
    the reviewed branch chose must not drop a file below or beside it)."""
    if not paths:
        return diff_text, []
    return _drop_sections(diff_text, paths.__contains__)


def _drop_sections(diff_text: str, drop: Callable[[str], bool]) -> tuple[str, list[str]]:
    preamble, sections = split_sections(diff_text)
    kept: list[str] = [preamble]
    dropped: list[str] = []
    for section in sections:
        if any(drop(path) for path in section.paths):
            dropped.append(section.display_path)
        else:
            kept.extend(section.lines)
    return (diff_text if not dropped else "".join(kept)), dropped
