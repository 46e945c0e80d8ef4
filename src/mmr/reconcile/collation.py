"""Locale-style string ordering for reconciliation tie-breaks.

MMR 4.0.1 sorts with ICU collation (en-US), not code-point order. It only breaks ties,
but it decides the order of ``sources`` and occasionally which key represents a group, so
it is emulated: punctuation before digits before letters, upper and lower case equal at
first (``a`` < ``A`` < ``b``), and control characters ignored. Non-ASCII characters sort
after all ASCII by code point, a documented approximation of ICU for a deep tie-breaker.
"""

from __future__ import annotations

from functools import lru_cache

_PRIMARY_ORDER = (
    "\t\n\x0b\x0c\r "
    "_-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"
    "0123456789"
    "abcdefghijklmnopqrstuvwxyz"
)
_IGNORED = [*range(0x00, 0x09), *range(0x0E, 0x20), 0x7F]


def _primary_table() -> dict[int, str | None]:
    # Each ASCII character becomes one character whose code point is its rank (1..74);
    # non-ASCII characters are left alone, so they rank after every ASCII one.
    table: dict[int, str | None] = {ord(ch): chr(rank) for rank, ch in enumerate(_PRIMARY_ORDER, 1)}
    for ch in "ABCDEFGHIJKLMNOPQRSTUVWXYZ":
        table[ord(ch)] = table[ord(ch.lower())]
    table.update(dict.fromkeys(_IGNORED))
    return table


class _CaseTable(dict[int, str | None]):
    """Upper-case ASCII letters → "1", ignored characters dropped, everything else → "0".

    ASCII is filled in; ``__missing__`` answers for the (rare) non-ASCII characters.
    """

    def __missing__(self, key: int) -> str:
        return "0"


def _case_table() -> _CaseTable:
    table = _CaseTable(dict.fromkeys(range(0x80), "0"))
    table.update({ord(ch): "1" for ch in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"})
    table.update(dict.fromkeys(_IGNORED))
    return table


_PRIMARY = _primary_table()
_CASE = _case_table()

CollateKey = tuple[str, str]


@lru_cache(maxsize=16384)
def collate_key(text: str) -> CollateKey:
    """Sort key: primary ranks first, then case flags (lower before upper)."""
    return text.translate(_PRIMARY), text.translate(_CASE)
