"""Cheap, certain rejection of candidates that cannot decode (for the any-value scanner).

The any-value scanner tries to decode *every* balanced candidate, nested
ones included, until one decodes. Decoding costs time proportional to the candidate, so
nested junk would cost quadratic time. This index answers, in constant time per
candidate, two questions whose "no" means the decode is certain to fail:

- does the candidate hold a character JSON never allows outside a string (a letter
  that is not part of ``true``/``false``/``null``, a backslash, ...)?
- is it nested deeper than Python's decoder can go (it would raise RecursionError)?

Both are computed right to left over the same "interesting" positions as
:class:`~mmr.parsers.brackets.BracketIndex`, in linear time. A "yes" proves nothing;
the candidate is then decoded for real.
"""

from __future__ import annotations

import re
import sys

from mmr.parsers.brackets import BracketIndex
from mmr.parsers.text import JS_SPACE

# What may sit between JSON strings and brackets. Deliberately permissive (JavaScript
# spaces, any run of number characters): the trailing-comma repair may still remove
# some of it, and the decoder has the last word anyway.
_BETWEEN_TOKENS = re.compile(rf"(?:[{JS_SPACE},:\-+0-9.eE]++|true|false|null)*+")


class PlausibilityIndex:
    """For each opener of ``index``: the first impossible character after it, and its depth."""

    def __init__(self, index: BracketIndex) -> None:
        self._index = index
        self._first_bad, self._depth = self._build()

    def _gap_bad(self, k: int) -> int | None:
        """First impossible position between interesting positions k and k + 1, if any."""
        positions, text = self._index.positions, self._index.text
        start = positions[k] + 1
        stop = positions[k + 1] if k + 1 < len(positions) else len(text)
        if start >= stop:
            return None
        reached = _BETWEEN_TOKENS.match(text, start, stop)
        end = reached.end() if reached else start
        return end if end < stop else None

    def _build(self) -> tuple[list[int], list[int]]:
        index = self._index
        positions, text, walk, string_end = (index.positions, index.text, index.walk,
                                             index.string_end)
        count = len(positions)
        never = len(text) + 1
        first_bad = [never] * (count + 1)  # first impossible position at or after k
        depth = [0] * (count + 1)  # deepest nesting reached before leaving k's level
        for k in range(count - 1, -1, -1):
            char = text[positions[k]]
            if char == '"':
                closing = string_end[k + 1]
                if closing >= 0:
                    gap = self._gap_bad(closing)
                    first_bad[k] = gap if gap is not None else first_bad[closing + 1]
                    depth[k] = depth[closing + 1]
                continue
            if char == "\\":  # a backslash outside a string is never JSON
                first_bad[k] = positions[k]
                depth[k] = depth[k + 1]
                continue
            gap = self._gap_bad(k)
            first_bad[k] = gap if gap is not None else first_bad[k + 1]
            if char in "{[":
                inside = 1 + depth[k + 1]
                closer = walk[k + 1]
                depth[k] = max(inside, depth[closer + 1]) if closer >= 0 else inside
        return first_bad, depth

    def may_decode(self, opener: int, end: int) -> bool:
        """False when the balanced candidate at ``positions[opener]`` to ``end`` cannot decode."""
        if self._first_bad[opener] <= end:
            return False
        return 1 + self._depth[opener + 1] <= sys.getrecursionlimit()
