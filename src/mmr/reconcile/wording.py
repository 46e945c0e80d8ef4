"""Content words of a description: what the calibrated rule compares.

Two reviewers often describe one defect in different function words and number spelling
("Division by zero when count is 0" / "Division by zero if count is zero"); MMR
4.0.1's character-shingle rule keeps those apart. The content words of a normalised
description are its word tokens without function words and hedges, with number words as
digits and a plural ``s`` dropped. Negations are content: every negation reads as ``not``.
"""

from __future__ import annotations

import re

#: Fewer content words than this carry too little meaning to merge on.
MIN_CONTENT_WORDS = 2

_WORD = re.compile(r"\w+")
_NOT = re.compile(r"n't\b|\bcannot\b")
_NEGATIONS = frozenset({"no", "never", "without", "nothing", "neither", "nor"})
_FUNCTION_WORDS = frozenset([
    "a", "an", "the", "this", "that", "these", "those", "there", "here", "it", "its", "itself",
    "they", "them", "their", "is", "are", "was", "were", "be", "been", "being", "am", "do",
    "does", "did", "done", "has", "have", "had", "having", "of", "in", "on", "at", "to", "for",
    "from", "by", "with", "within", "into", "onto", "over", "under", "about", "as", "via",
    "per", "and", "or", "but", "so", "yet", "if", "when", "whenever", "while", "where",
    "wherever", "which", "who", "whom", "whose", "what", "then", "than", "also", "too", "very",
    "just", "only", "even", "still", "already", "can", "could", "may", "might", "must",
    "should", "would", "will", "shall", "possible", "possibly", "potential", "potentially",
    "likely", "probably", "perhaps", "maybe", "seem", "seems", "issue", "problem", "bug",
])
_NUMBERS = {word: str(value) for value, word in enumerate([
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve",
])}


def _canonical(word: str) -> str:
    if word in _NEGATIONS:
        return "not"
    word = _NUMBERS.get(word, word)
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def content_words(normalized_description: str) -> frozenset[str]:
    """The content-word set of a description already normalised (lower-cased prose)."""
    words = {
        _canonical(word)
        for word in _WORD.findall(_NOT.sub(" not", normalized_description.lower()))
        if word not in _FUNCTION_WORDS
    }
    return frozenset(words) if len(words) >= MIN_CONTENT_WORDS else frozenset()
