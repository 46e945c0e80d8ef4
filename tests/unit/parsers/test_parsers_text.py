"""Fence stripping, trailing commas, strict JSON."""

from __future__ import annotations

import pytest

from mmr.parsers.text import (
    decode_candidate,
    decode_json,
    fix_trailing_commas,
    strip_markdown_fences,
)


@pytest.mark.parametrize(
    ("raw", "stripped"),
    [
        ('```json\n\n\n{"a":1}\n```', '{"a":1}\n'),
        ('```javascript\n{"a":1}\n```', 'javascript\n{"a":1}\n'),
        ('```JSON\n{"a":1}\n```  \nafter', 'JSON\n{"a":1}\nafter'),
        ('text```\n{"a":1}', 'text\n{"a":1}'),
        ('  ```json\n{"a":1}\n  ```', '  ```json\n{"a":1}\n  '),
        ('{"d":"x"}\n~~~\n', '{"d":"x"}\n~~~\n'),
        ("no fences", "no fences"),
    ],
)
def test_fence_table(raw: str, stripped: str) -> None:
    assert strip_markdown_fences(raw) == stripped


def test_fences_after_carriage_return_line_ends() -> None:
    # JavaScript's multiline ^ and $ also see \r as a line end.
    # Both fences sit at a line start after \r, so the opening pass removes both.
    assert strip_markdown_fences('x\r```json\r\n{"a":1}\r```\r') == 'x\r{"a":1}\r'


def test_trailing_commas_are_removed_before_closers() -> None:
    assert fix_trailing_commas('{"a": [1, 2, ], "b": 3 , \n}') == '{"a": [1, 2], "b": 3 }'


def test_trailing_commas_inside_strings_are_kept_q2() -> None:
    text = '{"d": "use [a, ] or {b, }",}'
    assert fix_trailing_commas(text) == '{"d": "use [a, ] or {b, }"}'


def test_trailing_comma_after_escaped_quote() -> None:
    assert fix_trailing_commas('["a\\", ]", ]') == '["a\\", ]"]'


@pytest.mark.parametrize("bad", ['{"a": NaN}', '{"a": Infinity}', '{"a": -Infinity}',
                                 "{'a': 1}", '{a: 1}', '{"a": 1 /* c */}'])
def test_strict_json_rejects_non_json(bad: str) -> None:
    with pytest.raises(ValueError):
        decode_json(bad)


def test_duplicate_keys_last_wins() -> None:
    assert decode_json('{"a": 1, "a": 2}') == {"a": 2}


def test_decode_candidate_in_place_and_with_repair() -> None:
    text = 'xx {"a": [1, 2,], "b": "c,]"} yy'
    start, end = text.index("{"), text.rindex("}")
    assert decode_candidate(text[start : end + 1]) == {"a": [1, 2], "b": "c,]"}
    with pytest.raises(ValueError):
        decode_candidate('{"a" 1}')
