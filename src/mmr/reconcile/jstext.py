"""String primitives that behave like MMR 4.0.1's JavaScript.

``finding_key`` must be byte-identical to MMR 4.0.1's, and Python's defaults differ
from JavaScript's in small ways that change keys: what counts as whitespace, what ``\\b``
and ``\\d`` match, and that JavaScript measures strings in UTF-16 code units. Everything
in :mod:`mmr.reconcile.stable_id` goes through these helpers instead of ``str.strip``,
``\\s`` or ``len``.
"""

from __future__ import annotations

import hashlib
import re

#: JavaScript's ``\\s`` / ``String.prototype.trim`` set. Python's also holds U+001C–U+001F
#: and U+0085 and lacks U+FEFF, so it is spelled out.
WS_CHARS = (
    "\t\n\x0b\x0c\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
#: The same set as a regex character class body (no brackets).
WS_CLASS = (
    "\\t\\n\\x0b\\x0c\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"
    "\\ufeff"
)

_WS_RUN = re.compile(f"[{WS_CLASS}]+")
#: Characters on which Python's ``str.split()`` and JavaScript's ``\s`` disagree.
_SPLIT_MISMATCH = re.compile("[\x1c-\x1f\x85\ufeff]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def trim(text: str) -> str:
    """Strip JavaScript whitespace from both ends."""
    return text.strip(WS_CHARS)


def collapse_ws(text: str) -> str:
    """Replace every run of JavaScript whitespace with one space, then trim."""
    if _SPLIT_MISMATCH.search(text) is None:
        return " ".join(text.split())  # the same result, several times faster
    return trim(_WS_RUN.sub(" ", text))


def starts_with_ws(text: str) -> bool:
    return bool(text) and text[0] in WS_CHARS


def ends_with_ws(text: str) -> bool:
    return bool(text) and text[-1] in WS_CHARS


def _is_bmp_only(text: str) -> bool:
    """True when every code point is one UTF-16 code unit (no astral characters)."""
    return text.isascii() or max(text) < "\U00010000"


def utf16_len(text: str) -> int:
    """Length in UTF-16 code units, as JavaScript's ``length``."""
    if _is_bmp_only(text):
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def utf16_windows(text: str, size: int) -> list[str]:
    """Every substring of ``size`` UTF-16 code units, in order (duplicates kept).

    A window may split a surrogate pair; it then holds a lone surrogate, as in JavaScript.
    """
    if _is_bmp_only(text):
        return [text[i : i + size] for i in range(len(text) - size + 1)]
    units = text.encode("utf-16-le", "surrogatepass")
    width = 2 * size
    return [
        units[i : i + width].decode("utf-16-le", "surrogatepass")
        for i in range(0, len(units) - width + 2, 2)
    ]


def sha1_hex(text: str) -> str:
    """SHA-1 of the UTF-8 bytes, with unpaired surrogates encoded as U+FFFD (like Node)."""
    if not text.isascii() and _SURROGATE.search(text):
        # Re-pairing through UTF-16 keeps valid pairs (split across two code points) whole
        # and turns only the unpaired halves into U+FFFD.
        text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return hashlib.sha1(text.encode("utf-8"), usedforsecurity=False).hexdigest()

