"""The credential keyword regexes are tries: they must match exactly what the plain
alternations matched (any keyword for a search, the longest keyword at each position for
the rule index)."""

from __future__ import annotations

import random
import re

import pytest

from mmr.secrets.credential_rules import literal_alternation, table_keywords

WORDS = ["ab", "abcd", "abce", "b", "bcd", "x-y", "a.c", "sk-", "sk-ant-", "ghp_", "gh"]


def _plain(words: list[str]) -> str:
    return "|".join(map(re.escape, sorted(words, key=len, reverse=True)))


def _texts(words: list[str], seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    alphabet = sorted({c for w in words for c in w} | set("q ._-"))
    out = []
    for _ in range(count):
        parts = []
        for _ in range(rng.randint(0, 6)):
            if rng.random() < 0.5:
                word = rng.choice(words)
                parts.append(word[: rng.randint(0, len(word))])
            else:
                parts.append("".join(rng.choice(alphabet) for _ in range(rng.randint(0, 4))))
        out.append("".join(parts))
    return out


@pytest.mark.parametrize("words", [WORDS, table_keywords()], ids=["small", "credential-keywords"])
def test_search_matches_the_plain_alternation(words: list[str]) -> None:
    trie, plain = re.compile(literal_alternation(words)), re.compile(_plain(words))
    for text in _texts(words, 7, 4000):
        assert (trie.search(text) is None) == (plain.search(text) is None), text


@pytest.mark.parametrize("words", [WORDS, table_keywords()], ids=["small", "credential-keywords"])
def test_longest_keyword_at_every_position(words: list[str]) -> None:
    trie = re.compile("(?=(" + literal_alternation(words, longest=True) + "))")
    plain = re.compile("(?=(" + _plain(words) + "))")
    for text in _texts(words, 11, 4000):
        assert trie.findall(text) == plain.findall(text), text


def test_a_word_that_is_a_prefix_of_another() -> None:
    finder = re.compile("(?=(" + literal_alternation(["ab", "abcd"], longest=True) + "))")
    assert finder.findall("abcx abcd") == ["ab", "abcd"]
    assert re.compile(literal_alternation(["ab", "abcd"])).fullmatch("ab")
