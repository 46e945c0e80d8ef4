"""How a config file is laid out, so an edit can write it back the same way.

Indentation is read from the file itself; comments and directives before a ``---`` line
(which ruamel.yaml would drop) are split off and put back.
"""

from __future__ import annotations

import re

from ruamel.yaml import YAML

_DOC_START = re.compile(r"^---[ \t]*(#.*)?$")


def round_trip_yaml(body: str) -> YAML:
    """A round-trip (comment-keeping) YAML 1.2 instance indenting like ``body``."""
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096  # never fold a long command line
    mapping, sequence, offset = guess_indents(body)
    yaml.indent(mapping=mapping, sequence=sequence, offset=offset)
    return yaml


def guess_indents(text: str) -> tuple[int, int, int]:
    """``(mapping, sequence, offset)`` indentation as the file already uses it.

    Defaults (2, 4, 2) give ``key:\\n  - item``, the style of the shipped presets.
    """
    mapping: int | None = None
    sequence: tuple[int, int] | None = None
    parent_indent: int | None = None
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(line) - len(line.lstrip(" "))
        if parent_indent is not None:
            if stripped.startswith("- ") and sequence is None and indent >= parent_indent:
                after = len(line) - len(stripped[1:].lstrip(" "))
                sequence = (after - parent_indent, indent - parent_indent)
            elif not stripped.startswith("-") and mapping is None and indent > parent_indent:
                mapping = indent - parent_indent
        parent_indent = indent if stripped.endswith(":") else None
    map_indent = mapping or 2
    seq_indent, offset = sequence or (map_indent + 2, map_indent)
    return map_indent, max(seq_indent, offset + 2), offset


def split_preamble(text: str) -> tuple[str, str]:
    """Comments and directives up to a ``---`` line, which ruamel would drop, and the rest."""
    lines = text.splitlines(keepends=True)
    for index, line in enumerate(lines):
        stripped = line.strip()
        if _DOC_START.match(stripped):
            return "".join(lines[: index + 1]), "".join(lines[index + 1:])
        if stripped and not stripped.startswith(("#", "%")):
            break
    return "", text
