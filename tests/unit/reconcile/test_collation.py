"""Locale-style tie-break ordering."""

from __future__ import annotations

import random

from mmr.reconcile.collation import collate_key


def _sorted(items: list[str]) -> list[str]:
    return sorted(items, key=collate_key)


def test_punctuation_then_digits_then_letters_with_lower_before_upper() -> None:
    assert _sorted(["b", "A", "a", "1", ".", "-", "_"]) == ["_", "-", ".", "1", "a", "A", "b"]


def test_whitespace_sorts_before_punctuation_in_the_documented_order() -> None:
    order = ["\t", "\n", "\x0b", "\x0c", "\r", " ", "_", "-", ",", ";", ":", "!", "?", ".",
             "'", '"', "(", ")", "[", "]", "{", "}", "@", "*", "/", "\\", "&", "#", "%", "`",
             "^", "+", "<", "=", ">", "|", "~", "$", "0", "9", "a", "z"]
    shuffled = order[:]
    random.Random(3).shuffle(shuffled)
    assert _sorted(shuffled) == order


def test_case_only_breaks_ties_after_all_letters_compare_equal() -> None:
    assert _sorted(["ab", "Aa"]) == ["Aa", "ab"]  # primary a-a < a-b wins over case
    assert _sorted(["Ab", "ab"]) == ["ab", "Ab"]
    assert _sorted(["Zed", "codex", "a-b", "a_b"]) == ["a_b", "a-b", "codex", "Zed"]


def test_control_characters_are_ignored() -> None:
    assert collate_key("a\x01b") == collate_key("ab")
    assert collate_key("\x7fx") == collate_key("x")
    assert collate_key("a\tb") != collate_key("ab")  # tab is not ignored


def test_non_ascii_sorts_after_all_ascii() -> None:
    assert _sorted(["é", "z", "$", "Z"]) == ["$", "z", "Z", "é"]


def test_prefix_sorts_first() -> None:
    assert _sorted(["ab", "a", "a_"]) == ["a", "a_", "ab"]


def test_hex_keys_collate_like_plain_string_order() -> None:
    rng = random.Random(5)
    keys = ["".join(rng.choice("0123456789abcdef") for _ in range(12)) for _ in range(200)]
    assert _sorted(keys) == sorted(keys)
