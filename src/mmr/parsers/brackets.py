"""Where does the bracket opened at a position close? Answered for every position in linear time.

MMR 4.0.1's scanners restart a bracket-stack walk at each candidate position, which
costs quadratic time on long replies full of unclosed brackets (a truncated envelope,
prose with stray braces). This index precomputes, right to left, the outcome of such a
walk from every position outside a string, so each scan is a constant-time lookup with
exactly MMR 4.0.1's outcome: balanced at a closer, mismatched at a
closer, or unbalanced to the end of the text.

Only "interesting" characters (quotes, backslashes and the tracked brackets) are visited.
A string starts at ``"`` and ends at the next ``"`` not escaped by a backslash; a
backslash outside a string is an ordinary character, as in MMR 4.0.1.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator
from dataclasses import dataclass

_END = -1  # the walk reached the end of the text


def _mismatch_code(index: int) -> int:
    return -2 - index


@dataclass(frozen=True, slots=True)
class Balanced:
    end: int  # position of the matching closer


@dataclass(frozen=True, slots=True)
class Mismatched:
    at: int  # position of the closer that did not match


@dataclass(frozen=True, slots=True)
class Unclosed:
    pass


ScanResult = Balanced | Mismatched | Unclosed

_PAIRS = {"{": "}", "[": "]"}


class BracketIndex:
    """Outcome of a bracket-stack scan from any opener of ``text``.

    ``brackets`` names the tracked pairs: ``"{}[]"`` for the JSON scanners, ``"[]"`` for
    external array input, where braces are ordinary characters.
    """

    def __init__(self, text: str, brackets: str = "{}[]") -> None:
        self.text = text
        self._openers = frozenset(brackets[0::2])
        self._closers = frozenset(brackets[1::2])
        pattern = re.compile('["\\\\' + re.escape(brackets) + "]")
        self.positions = [m.start() for m in pattern.finditer(text)]
        self.string_end, self.walk = self._build()

    def _build(self) -> tuple[list[int], list[int]]:
        """``(string_end, walk)``, indexed like ``positions``.

        ``string_end[k]``: index of the quote that ends a string open at ``positions[k]``,
        or -1. ``walk[k]``: outcome of walking outside a string from ``positions[k]``: a
        value >= 0 is the index of the first closer reached at depth zero; ``_END`` means
        the text ended; ``_mismatch_code(i)`` means a nested bracket mismatched at index i.
        """
        positions, text = self.positions, self.text
        count = len(positions)
        string_end = [-1] * (count + 1)
        walk = [_END] * (count + 1)
        for k in range(count - 1, -1, -1):
            char = text[positions[k]]
            if char == '"':
                string_end[k] = k
            elif char == "\\":
                resume = k + 1
                if resume < count and positions[resume] == positions[k] + 1:
                    resume += 1  # the escaped character is itself interesting: skip it
                string_end[k] = string_end[resume]
            else:
                string_end[k] = string_end[k + 1]

            if char == '"':
                closing = string_end[k + 1]
                walk[k] = _END if closing < 0 else walk[closing + 1]
            elif char in self._openers:
                inner = walk[k + 1]
                if inner >= 0:
                    closes = text[positions[inner]] == _PAIRS[char]
                    walk[k] = walk[inner + 1] if closes else _mismatch_code(inner)
                else:
                    walk[k] = inner
            elif char in self._closers:
                walk[k] = k
            else:
                walk[k] = walk[k + 1]
        return string_end, walk

    def opener_indices(self, start: int = 0) -> Iterator[tuple[int, int]]:
        """``(index, position)`` of every tracked opener at or after ``start``, in order."""
        for index, position in enumerate(self.positions):
            if position >= start and self.text[position] in self._openers:
                yield index, position

    def scan_index(self, index: int) -> ScanResult:
        """Outcome of the bracket-stack scan started at the opener ``positions[index]``."""
        opener = self.text[self.positions[index]]
        inner = self.walk[index + 1]
        if inner >= 0:
            closer_at = self.positions[inner]
            if self.text[closer_at] == _PAIRS[opener]:
                return Balanced(closer_at)
            return Mismatched(closer_at)
        if inner == _END:
            return Unclosed()
        return Mismatched(self.positions[-2 - inner])

    def scan(self, position: int) -> ScanResult:
        """Outcome of the scan started at ``position``, which must hold a tracked opener."""
        index = bisect_left(self.positions, position)
        if (
            index == len(self.positions)
            or self.positions[index] != position
            or self.text[position] not in self._openers
        ):
            raise ValueError(f"no tracked opener at position {position}")
        return self.scan_index(index)
