""""Did you mean …?" suggestions. rapidfuzz is imported only when a suggestion is needed,
so a clean config load never pays for it."""

from __future__ import annotations

from collections.abc import Iterable


def closest(word: str, candidates: Iterable[str], *, cutoff: float = 70.0) -> str | None:
    """The candidate most similar to ``word``, or None when nothing is close enough."""
    choices = [c for c in candidates if c != word]
    if not choices:
        return None
    from rapidfuzz import fuzz, process

    match = process.extractOne(word, choices, scorer=fuzz.ratio, score_cutoff=cutoff)
    return None if match is None else str(match[0])


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """`` (did you mean "x"?)`` or an empty string."""
    best = closest(word, candidates)
    return f' (did you mean "{best}"?)' if best else ""
