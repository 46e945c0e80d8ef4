"""Generated, vendored and lock files, named to the reviewers with their size, not sent.

A file counts when the trusted ref's ``.gitattributes`` marks it ``linguist-generated`` or
``linguist-vendored`` (the branch cannot unmark its own files), or by a well-known name.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from fnmatch import fnmatchcase

from mmr.unidiff.sections import split_sections
from mmr.unidiff.walk import walk_diff

#: Names (any directory) and path patterns that are generated or vendored by convention.
WELL_KNOWN = (
    "package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "bun.lockb",
    "Cargo.lock", "poetry.lock", "Pipfile.lock", "uv.lock", "pdm.lock", "composer.lock",
    "Gemfile.lock", "go.sum", "flake.lock", "*.min.js", "*.min.css", "*.map", "*.pb.go",
    "*_pb2.py", "*_pb2_grpc.py", "vendor/**", "node_modules/**", "third_party/**",
)
_ATTRIBUTES = ("linguist-generated", "linguist-vendored")


@dataclass(frozen=True)
class GeneratedFile:
    """A file left out of the prompts, and how many lines it adds and removes."""

    path: str
    added: int
    removed: int

    def line(self) -> str:  # the name as a JSON string: it cannot break its line
        return f"{json.dumps(self.path, ensure_ascii=False)} (+{self.added} -{self.removed} lines)"


def _matches(pattern: str, path: str) -> bool:
    """A pattern without ``/`` matches the name in any directory, ``dir/**`` what is below."""
    if pattern.endswith("/**"):
        prefix = pattern[:-3].lstrip("/")
        return path.startswith(prefix + "/") or f"/{prefix}/" in f"/{path}"
    if "/" not in pattern.rstrip("/"):
        return fnmatchcase(path.rsplit("/", 1)[-1], pattern)
    return fnmatchcase(path, pattern.lstrip("/"))


def _attribute_rules(gitattributes: str) -> list[tuple[str, bool]]:
    """Each line's pattern and whether it sets (True) or unsets a linguist attribute."""
    rules: list[tuple[str, bool]] = []
    for line in gitattributes.splitlines():
        pattern, *attrs = line.split() or [""]
        for attr in attrs if pattern and not pattern.startswith("#") else ():
            name, _, value = attr.lstrip("-!").partition("=")
            if name in _ATTRIBUTES:
                rules.append((pattern, not attr.startswith(("-", "!")) and value != "false"))
    return rules


def is_generated(path: str, rules: list[tuple[str, bool]]) -> bool:
    """The last ``.gitattributes`` rule matching ``path`` decides; else the well-known list."""
    for pattern, value in reversed(rules):
        if _matches(pattern, path):
            return value
    return any(_matches(pattern, path) for pattern in WELL_KNOWN)


def generated_files(diff: str, gitattributes: str | None) -> tuple[GeneratedFile, ...]:
    """The files of ``diff`` that are generated, vendored or lock files, in diff order."""
    rules = _attribute_rules(gitattributes or "")
    found: list[GeneratedFile] = []
    for section in split_sections(diff)[1]:
        if not any(is_generated(path, rules) for path in section.paths):
            continue
        # Counted by the diff walker: a removed "-- comment" line is not a "--- " header.
        kinds = [row.kind for row in walk_diff("".join(section.lines))]
        found.append(GeneratedFile(section.display_path, kinds.count("added"),
                                   kinds.count("removed")))
    return tuple(found)
