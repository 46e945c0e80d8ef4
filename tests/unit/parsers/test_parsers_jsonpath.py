"""The JSONPath subset and the telemetry ``*`` segment."""

from __future__ import annotations

from typing import Any

import pytest

from mmr.parsers.jsonpath import (
    NO_MATCH,
    parse_path,
    path_label,
    resolve_path,
    resolve_telemetry_path,
)

NUMERIC = "(only numeric indices supported)"
DOC = {"a": {"b": 2}, "arr": [{"b": "x"}, {"b": "y"}], "n": None, "s": "str",
       "__proto__": 1, "constructor": 2, "prototype": 3}


@pytest.mark.parametrize(
    ("path", "value"),
    [("$", DOC), ("$.a", {"b": 2}), ("$.a.b", 2), ("$.arr[0]", {"b": "x"}),
     ("$.arr[0].b", "x"), ("$.arr.[1]", {"b": "y"}), ("$.arr[01].b", "y"), ("$.n", None)],
)
def test_resolves(path: str, value: Any) -> None:
    assert resolve_path(DOC, path) == value


@pytest.mark.parametrize(
    "path",
    ["$.missing", "$.arr[5]", "$.s.b", "$.n.b", "$.a[0]", "$.arr.b", "$.__proto__",
     "$.constructor", "$.prototype"],
)
def test_no_match(path: str) -> None:
    assert resolve_path(DOC, path) is NO_MATCH


def test_null_is_a_match_and_no_match_is_not_null() -> None:
    assert resolve_path({"t": None}, "$.t") is None
    assert NO_MATCH is not None
    assert resolve_path([10, 20], "$[1]") == 20


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("a.b", "jsonpath must start with $ (got: a.b)"),
        ("text", "jsonpath must start with $ (got: text)"),
        ("$..a", "jsonpath malformed empty property at offset 1 (path: $..a)"),
        ("$.a.", "jsonpath malformed empty property at offset 3 (path: $.a.)"),
        ("$.0", "jsonpath malformed empty property at offset 1 (path: $.0)"),
        ("$.é", "jsonpath malformed empty property at offset 1 (path: $.é)"),
        ("$.arr[1", "jsonpath malformed: unclosed [ at offset 5 (path: $.arr[1)"),
        ("$.a[abc]", f'jsonpath invalid index "abc" {NUMERIC} at offset 3 (path: $.a[abc])'),
        ("$.a[-1]", f'jsonpath invalid index "-1" {NUMERIC} at offset 3 (path: $.a[-1])'),
        ("$.a[ 1 ]", f'jsonpath invalid index " 1 " {NUMERIC} at offset 3 (path: $.a[ 1 ])'),
        ('$["a"]', f'jsonpath invalid index ""a"" {NUMERIC} at offset 1 (path: $["a"])'),
        ("$a", 'jsonpath unexpected character "a" at offset 1 (path: $a)'),
        ("$.a b", 'jsonpath unexpected character " " at offset 3 (path: $.a b)'),
        ("$.*", "jsonpath malformed empty property at offset 1 (path: $.*)"),
    ],
)
def test_syntax_errors(path: str, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_path(path)
    assert str(caught.value) == message


def test_whole_path_is_checked_even_past_a_missing_key_q10() -> None:
    # Q10: the reference stops at the first missing key and never sees `[abc]`.
    with pytest.raises(ValueError, match="invalid index"):
        resolve_path({}, "$.missing[abc]")


def test_telemetry_star_is_the_first_member() -> None:
    envelope = {"modelUsage": {"MiniMax-M3": {"contextWindow": 1000000}, "other": {}}}
    assert resolve_telemetry_path(envelope, "$.modelUsage.*.contextWindow") == 1000000
    assert resolve_telemetry_path({"modelUsage": {}}, "$.modelUsage.*") is NO_MATCH
    assert resolve_telemetry_path({"modelUsage": [1]}, "$.modelUsage.*") is NO_MATCH
    assert len(parse_path("$.a.*.b", allow_wildcard=True)) == 3


def test_path_label() -> None:
    assert path_label("$.stopReason") == "stopReason"
    assert path_label("$.meta[0]") == "meta[0]"
    assert path_label("$") == "$"
    assert path_label("$[0]") == "$[0]"
