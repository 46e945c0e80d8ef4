"""The linear-time scanners agree with the spec's step-by-step scanners."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mmr.parsers.brackets import Balanced, BracketIndex, Mismatched, Unclosed
from mmr.parsers.errors import MismatchError, ParseError, UnbalancedError
from mmr.parsers.plausible import PlausibilityIndex
from mmr.parsers.scanners import (
    NO_OBJECT,
    NO_OBJECT_ROOTS,
    NO_VALUE,
    TRUNCATED_TAIL,
    extract_any_value,
    extract_first_object,
    extract_last_object,
    scan_error,
)
from mmr.parsers.text import decode_candidate
from tests.unit.parsers.naive import canonical, naive_any_value, naive_last_object, naive_scan

# Bracket soup: the characters the scanners care about, plus pieces of valid JSON.
SOUP = st.one_of(
    st.text(alphabet='{}[]"\\a1:, ', max_size=40),
    st.lists(st.sampled_from(['{', '}', '[', ']', '"', '\\', ',', ':', ' ', '1', '-2.5e3',
                              'true', 'nul', 'null', 'x', '"k"', '\n', '\u00a0']),
             max_size=30).map("".join),
)


def _kind(result: Balanced | Mismatched | Unclosed) -> tuple[str, int]:
    if isinstance(result, Balanced):
        return ("balanced", result.end)
    if isinstance(result, Mismatched):
        return ("mismatch", result.at)
    return ("unclosed", -1)


def _outcome(fn: Any, text: str) -> tuple[str, Any]:
    try:
        return ("ok", canonical(fn(text)))
    except MismatchError:
        return ("error", "mismatch")
    except UnbalancedError:
        return ("error", "unbalanced")
    except ParseError as exc:
        named = {TRUNCATED_TAIL: "truncated", NO_OBJECT_ROOTS: "roots", NO_OBJECT: "none",
                 NO_VALUE: "none"}
        return ("error", named[str(exc)])
    except ValueError:
        return ("error", "json")


@settings(max_examples=300, deadline=None)
@given(SOUP)
def test_bracket_index_matches_a_fresh_walk_from_every_opener(text: str) -> None:
    for brackets in ("{}[]", "[]"):
        index = BracketIndex(text, brackets)
        for _, start in index.opener_indices():
            assert _kind(index.scan(start)) == naive_scan(text, start, brackets)


@settings(max_examples=300, deadline=None)
@given(SOUP)
def test_last_object_scanner_matches_the_spec_walk(text: str) -> None:
    expected = naive_last_object(text)
    got = _outcome(extract_last_object, text)
    if expected[0] == "ok":
        expected = ("ok", canonical(expected[1]))
    assert got == expected


@settings(max_examples=300, deadline=None)
@given(SOUP)
def test_any_value_scanner_matches_the_spec_walk(text: str) -> None:
    expected = naive_any_value(text)
    got = _outcome(extract_any_value, text)
    if expected[0] == "ok":
        expected = ("ok", canonical(expected[1]))
    elif expected[1] == "unclosed":
        expected = ("error", "unbalanced")
    assert got == expected


@settings(max_examples=300, deadline=None)
@given(SOUP)
def test_plausibility_never_rejects_a_candidate_that_decodes(text: str) -> None:
    index = BracketIndex(text)
    plausible = PlausibilityIndex(index)
    for entry, start in index.opener_indices():
        result = index.scan_index(entry)
        if isinstance(result, Balanced) and not plausible.may_decode(entry, result.end):
            with pytest.raises((ValueError, RecursionError)):
                decode_candidate(text[start : result.end + 1])


def test_plausibility_rejects_prose_and_too_deep_nesting() -> None:
    text = "{config} [1, 2] " + "[" * 5000 + "]" * 5000
    index = BracketIndex(text)
    plausible = PlausibilityIndex(index)
    verdicts: dict[int, bool] = {}
    for entry, start in index.opener_indices():
        result = index.scan_index(entry)
        assert isinstance(result, Balanced)
        verdicts[start] = plausible.may_decode(entry, result.end)
    assert verdicts[0] is False  # a letter outside a string
    assert verdicts[9] is True
    assert verdicts[16] is False  # deeper than the decoder's recursion limit
    assert verdicts[16 + 4999] is True


def test_first_object_ignores_braces_inside_strings_and_escaped_quotes() -> None:
    text = 'x {"s": "a } \\" { b", "t": {"u": 1}} tail }'
    assert extract_first_object(text) == '{"s": "a } \\" { b", "t": {"u": 1}}'


def test_first_object_counts_braces_only() -> None:
    assert extract_first_object('{"a": [}') == '{"a": [}'


def test_first_object_errors() -> None:
    with pytest.raises(ParseError, match=r"^No JSON object found in output$"):
        extract_first_object("[1, 2]")
    with pytest.raises(UnbalancedError, match=r"^Unbalanced braces in JSON output$"):
        extract_first_object('{"approved": false, "findings": [{"descr')


def scan_balanced(text: str, start: int) -> str:
    """The balanced candidate opened at ``start``, or the error a parser raises for it."""
    result = BracketIndex(text).scan(start)
    if isinstance(result, Balanced):
        return text[start : result.end + 1]
    raise scan_error(text, start, result if isinstance(result, Mismatched) else None)


def test_scan_errors_name_the_kind() -> None:
    assert scan_balanced('x [1, {"a": "]"}] y', 2) == '[1, {"a": "]"}]'
    with pytest.raises(UnbalancedError, match="Unbalanced brackets in JSON output"):
        scan_balanced("[1, 2", 0)
    with pytest.raises(UnbalancedError, match="Unbalanced braces in JSON output"):
        scan_balanced("{", 0)
    with pytest.raises(MismatchError, match=r"^Mismatched JSON delimiters near: \{\"a\": \[1\}$"):
        scan_balanced('{"a": [1}', 0)


def test_mismatch_snippet_is_capped() -> None:
    text = "{" + "a" * 1000 + "]"
    with pytest.raises(MismatchError) as caught:
        scan_balanced(text, 0)
    assert len(str(caught.value)) < 300


def test_any_value_takes_a_prose_array_first_q8() -> None:
    # Q8 kept for parity: `[1]` in prose decodes first and becomes the envelope.
    assert extract_any_value('Result [1]: {"text": "x"}') == [1]


def test_any_value_descends_into_a_broken_outer_object() -> None:
    assert extract_any_value('{"broken": {"text": "x"} ,,, }') == {"text": "x"}


def test_any_value_without_brackets() -> None:
    with pytest.raises(ParseError, match=r"^No JSON object or array found in output$"):
        extract_any_value("no json at all")
