"""finding_key and description_shingle against the reference's vectors."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from mmr.models import Finding
from mmr.reconcile.jstext import sha1_hex
from mmr.reconcile.stable_id import (
    description_shingle,
    finding_key,
    identify,
    jaccard,
    normalize_category,
    normalize_description,
    normalize_location,
    normalize_suggestion,
    strip_dot_slash,
)

VECTORS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parents[2] / "fixtures" / "stable-id-vectors.json").read_text("utf-8")
)["vectors"]
_INTERMEDIATES = (
    "normalized_location", "normalized_category", "normalized_description",
    "normalized_suggestion", "description_sha1", "suggestion_sha1", "key_preimage", "finding_key",
)


def _finding(location: str = "src/foo.ts:42", description: str = "bug",
             suggestion: str = "fix it", category: str | None = None,
             severity: str = "P1") -> Finding:
    return Finding.model_validate({"severity": severity, "location": location,
                                   "description": description, "suggestion": suggestion,
                                   "category": category})


def test_fixture_holds_all_66_vectors() -> None:
    assert len(VECTORS) == 66


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"] for v in VECTORS])
def test_every_intermediate_value_matches_the_reference(vector: dict[str, Any]) -> None:
    ident = identify(Finding.model_validate(vector["finding"]))
    for name in _INTERMEDIATES:
        assert getattr(ident, name) == vector[name], name
    assert list(ident.description_shingle) == vector["description_shingle"]
    assert description_shingle(vector["finding"]["description"]) == vector["description_shingle"]
    assert finding_key(Finding.model_validate(vector["finding"])) == vector["finding_key"]
    assert sha1_hex(vector["key_preimage"]) == vector["finding_key"]


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"] for v in VECTORS])
def test_public_normalisers_match_the_vectors(vector: dict[str, Any]) -> None:
    finding = vector["finding"]
    assert normalize_location(finding["location"]) == vector["normalized_location"]
    assert normalize_category(finding.get("category")) == vector["normalized_category"]
    assert normalize_description(finding["description"]) == vector["normalized_description"]
    assert normalize_suggestion(finding["suggestion"]) == vector["normalized_suggestion"]


def test_no_vector_location_starts_with_dot_slash() -> None:
    """The ./ strip (Decisions) cannot change any vector's key."""
    for vector in VECTORS:
        loc = vector["finding"]["location"]
        assert strip_dot_slash(loc) == loc, vector["name"]


def test_keys_are_40_lowercase_hex() -> None:
    for vector in VECTORS:
        key = finding_key(Finding.model_validate(vector["finding"]))
        assert re.fullmatch(r"[0-9a-f]{40}", key)


@pytest.mark.parametrize("location", [
    "src/foo.ts:99", "src/foo.ts:42:7", "src/foo.ts:10:5-7", "src/foo.ts:1-9",
    "src/foo.ts (line 42)", "src/foo.ts (Line 42)", "  Src/Foo.TS:42  ", "\ufeffsrc/foo.ts:42",
    "./src/foo.ts:42", " ./src/foo.ts:7",
])
def test_line_spans_case_and_dot_slash_do_not_change_the_key(location: str) -> None:
    assert finding_key(_finding(location)) == "f9a76906c69def7c2754f4128522a3d7c041840e"


def test_severity_is_not_part_of_the_key() -> None:
    assert finding_key(_finding(severity="P0")) == finding_key(_finding(severity="P3"))


def test_dot_slash_strip_removes_exactly_one_leading_dot_slash() -> None:
    assert strip_dot_slash("./src/a.py:5") == "src/a.py:5"
    assert strip_dot_slash("  ./src/a.py:5") == "src/a.py:5"
    assert strip_dot_slash("././a.py") == "./a.py"
    assert strip_dot_slash("../x.py") == "../x.py"
    assert strip_dot_slash(".x/a.py") == ".x/a.py"
    assert strip_dot_slash("  src/a.py ") == "  src/a.py "  # untouched without ./
    assert identify(_finding("./src/a.py:5")).location == "src/a.py:5"
    assert finding_key(_finding("././a.py")) != finding_key(_finding("a.py"))


def test_only_javascript_whitespace_is_trimmed() -> None:
    assert normalize_location("\x1fsrc/a.ts:1") == "\x1fsrc/a.ts"
    assert normalize_location("\x85src/a.ts:1") == "\x85src/a.ts"
    assert normalize_location("\u3000src/a.ts:1\ufeff") == "src/a.ts"
    assert normalize_description("a\x85b\u2028c") == "a\x85b c"


def test_location_is_trimmed_before_the_span_strip_and_not_after() -> None:
    assert normalize_location("a.ts:3\n") == "a.ts"
    assert normalize_location("a.ts:3\x1f") == "a.ts:3\x1f"  # U+001F is not whitespace
    assert normalize_location("src/foo.ts :42") == "src/foo.ts "
    assert normalize_location("a.ts:1:2:3") == "a.ts:1"
    assert normalize_location("src/foo.ts#L42") == "src/foo.ts#l42"


def test_empty_description_and_suggestion_hash_as_sha1_of_empty() -> None:
    ident = identify(_finding(description="", suggestion=""))
    empty = "da39a3ee5e6b4b0d3255bfef95601890afd80709"
    assert ident.description_sha1 == empty
    assert ident.suggestion_sha1 == empty


def test_lone_surrogates_hash_as_replacement_character() -> None:
    assert sha1_hex("a\ud83d") == sha1_hex("a\ufffd")
    # A pair held as two code points is still one character to JavaScript.
    assert sha1_hex("\ud83d\ude00") == sha1_hex("\U0001f600")


@pytest.mark.parametrize(("description", "shingle"), [
    ("hello world", ["hello", "ello ", "llo w", "lo wo", "o wor", " worl", "world"]),
    ("aaaaaaa", ["aaaaa"]),
    ("abcde", ["abcde"]),
    ("abc", []),
    ("must", []),
    ("`a`.", []),
])
def test_shingle_examples_from_the_spec(description: str, shingle: list[str]) -> None:
    assert description_shingle(description) == shingle


def test_shingle_text_doubles_and_triples_spaces_next_to_code_spans() -> None:
    grams = description_shingle("`a` `b` xx")
    assert grams[0] == "`a`  "
    assert "`   `" in grams  # three spaces between the spans
    assert "`  xx" in grams


def test_modal_verbs_give_different_keys_but_identical_shingles() -> None:
    should = _finding(description="unused variable named fooBar should be removed")
    must = _finding(description="unused variable named fooBar must be removed")
    assert finding_key(should) != finding_key(must)
    a = frozenset(identify(should).description_shingle)
    b = frozenset(identify(must).description_shingle)
    assert jaccard(a, b) == 1.0
    assert description_shingle("`must` is unused")[0] == "`must"


def test_emoji_shingle_round_trips_through_json_with_lowercase_escapes() -> None:
    grams = description_shingle("Crash on 😀 input")
    assert len(grams) == 13
    assert " on \ud83d" in grams
    assert "\ude00 inp" in grams
    text = json.dumps(grams, ensure_ascii=False, indent=2).encode("utf-8", "backslashreplace")
    assert b'" on \\ud83d"' in text
    assert json.loads(text) == grams


def test_jaccard_values() -> None:
    assert jaccard(frozenset("ab"), frozenset("ab")) == 1.0
    assert jaccard(frozenset("ab"), frozenset("cd")) == 0.0
    assert jaccard(frozenset("ab"), frozenset("bc")) == 1 / 3
    assert jaccard(frozenset(), frozenset()) == 1.0
    seven = frozenset(str(i) for i in range(7))
    ten = frozenset(str(i) for i in range(10))
    assert jaccard(seven, ten) >= 0.7  # 7/10 passes the threshold exactly


def test_measured_similarities_from_the_spec() -> None:
    def j(a: str, b: str) -> float:
        return jaccard(frozenset(description_shingle(a)), frozenset(description_shingle(b)))

    assert j("Token compared with == allows timing attack",
             "Token compared with == allows a timing attack") == 36 / 44
    assert j("Missing auth check on DELETE /users",
             "Missing auth check on DELETE /users endpoint") == 31 / 40
