"""File names as diff headers write them: git's C quoting, a ``---``/``+++`` name, and
the two names of a ``diff --git`` line.

git quotes a path with unusual bytes (``"caf\\303\\251 \\"q\\".txt"``); a plain ``diff -u``
follows the name with a tab and a timestamp. The diff splitter (:mod:`mmr.unidiff.
sections`) and the findings filter (:mod:`mmr.reconcile.diff_filter`) read names
through these functions, so they decode a header the same way.
"""

from __future__ import annotations

import re

_OCTAL = re.compile(r"[0-7]{3}")
_ESCAPES = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11, '"': 34, "\\": 92}


def unquote(text: str) -> tuple[str, str]:
    """Decode a C-quoted git path at the start of ``text``; return it and what follows.

    ``\\NNN`` is one byte (git writes exactly three octal digits), ``\\n`` and friends are
    their control characters, any other escaped character stands for itself; bytes that
    are not UTF-8 become U+FFFD. An unterminated name runs to the end of ``text``.
    """
    out = bytearray()
    i = 1
    while i < len(text) and text[i] != '"':
        char = text[i]
        if char == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            if _OCTAL.fullmatch(text, i + 1, i + 4):
                out.append(int(text[i + 1:i + 4], 8) & 0xFF)
                i += 4
                continue
            out.extend(bytes([_ESCAPES[nxt]]) if nxt in _ESCAPES else _char_bytes(nxt))
            i += 2
            continue
        out.extend(_char_bytes(char))
        i += 1
    return out.decode("utf-8", errors="replace"), text[i + 1:]


def header_name(text: str) -> str:
    """The name in a ``---``/``+++`` header after that prefix: quoted, or cut at the tab
    before a plain diff's timestamp."""
    if text.startswith('"'):
        return unquote(text)[0]
    return text.split("\t", 1)[0]


def strip_side_prefix(path: str) -> str:
    """``path`` without one leading ``a/`` or ``b/`` (git's default side prefixes)."""
    return path[2:] if path.startswith(("a/", "b/")) else path


def git_header_names(rest: str) -> tuple[str, str] | None:
    """The two raw names of ``diff --git <old> <new>``; None when unquoted names with
    spaces cannot be told apart (a rename's ``rename from``/``to`` lines name it then)."""
    if rest.startswith('"'):
        old, tail = unquote(rest)
        return old, header_name(tail.lstrip(" "))
    if rest.endswith('"') and ' "' in rest:
        old, _, new = rest.partition(' "')
        return old, unquote('"' + new)[0]
    # Unquoted names split where both sides name one file once a one-letter prefix (a/,
    # b/, git's mnemonic i/, w/...) is dropped from either: sides of i and len - i - 1
    # characters then put 2i at len - 3, len - 1 or len + 1. Trying only those keeps a
    # long header linear (splitting at every space was quadratic).
    for twice in (len(rest) - 3, len(rest) - 1, len(rest) + 1):
        i = twice // 2
        if twice % 2 == 0 and 0 <= i < len(rest) and rest[i] == " ":
            old, new = rest[:i], rest[i + 1:]
            if not _unprefixed(old).isdisjoint(_unprefixed(new)):
                return old, new
    sides = rest.split(" b/")
    return (sides[0], "b/" + sides[1]) if len(sides) == 2 else None


def _unprefixed(name: str) -> set[str]:
    """``name`` as written and without a one-letter ``x/`` prefix."""
    return {name, name[2:]} if name[1:2] == "/" else {name}


def _char_bytes(char: str) -> bytes:
    """UTF-8 of one character; a byte smuggled in by ``surrogateescape`` is that byte."""
    try:
        return char.encode("utf-8", errors="surrogateescape")
    except UnicodeEncodeError:  # any other lone surrogate: not text, read it as U+FFFD
        return "\ufffd".encode()
