"""The credential keywords are found by Aho-Corasick automatons: the rules tried on a line
are exactly those one of whose keywords occurs in it (one keyword inside another, such as
``sk-`` in ``sk-ant-``, included), and the cheap pre-test says no only when no keyword or
long token is there."""

from __future__ import annotations

import random

from mmr.secrets.credential_patterns import may_hold_credentials
from mmr.secrets.credential_rules import _TABLE, rules_for, table_keywords, token_rules


def texts(count: int) -> list[str]:
    """Random runs of keyword pieces, whole keywords and filler (non-ASCII too)."""
    rng = random.Random(28)
    words = table_keywords()
    out = []
    for _ in range(count):
        parts = []
        for _ in range(rng.randint(0, 6)):
            word = rng.choice(words)
            parts.append(rng.choice([word, word[: rng.randint(0, len(word))],
                                     rng.choice(["q", " ", "é", "\udcff", "sk-ant-"])]))
        out.append("".join(parts))
    return out


def test_rules_for_is_every_rule_whose_keyword_occurs() -> None:
    table = token_rules()
    for lower in texts(3000):
        expected = [table[i] for i, (_, keywords, _) in enumerate(_TABLE)
                    if any(word in lower for word in keywords)]
        assert rules_for(lower) == expected, lower


def test_a_keyword_inside_another_brings_its_own_rules() -> None:
    kinds = {rule.kind for rule in rules_for("sk-ant-api03-")}
    assert {"anthropic-key", "openai-key", "twilio-key"} <= kinds


def test_the_pre_test_sees_every_keyword() -> None:
    for word in table_keywords():
        assert may_hold_credentials(f"x = {word.upper()} \udcff")
    assert not may_hold_credentials("def add(a, b):\n    return a + b  # é\n")
