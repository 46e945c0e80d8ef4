"""File names as diff headers write them: git's C quoting, and a ``---``/``+++`` name.

git quotes a path with unusual bytes (``"caf\\303\\251 \\"q\\".txt"``); a plain ``diff -u``
follows the name with a tab and a timestamp. The diff splitter (:mod:`mmr.review.
diff_sections`) and the findings filter (:mod:`mmr.reconcile.diff_filter`) read names
through these two functions, so they decode a header the same way.
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


def _char_bytes(char: str) -> bytes:
    """UTF-8 of one character; a byte smuggled in by ``surrogateescape`` is that byte."""
    try:
        return char.encode("utf-8", errors="surrogateescape")
    except UnicodeEncodeError:  # any other lone surrogate: not text, read it as U+FFFD
        return "\ufffd".encode()
