"""One C decode where the bracket scans would find the same JSON (issue 19).

When the first object is strict JSON and no ``{`` follows it, ``parse_default`` decodes it
once instead of scanning the reply's brackets and decoding twice. The oracle below is the
full reading (issue-13 top-level objects, then the reference's first object); replies
built from objects, arrays, prose, trailing commas and NaN must parse identically.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from mmr.models import ParsedOutput
from mmr.parsers import external
from mmr.parsers.brackets import BracketIndex
from mmr.parsers.builtin import bare_findings_array, parse_default, scanned_reading
from mmr.parsers.text import strip_markdown_fences


def _full_reading(raw: str) -> ParsedOutput:
    """``default`` without the one-decode shortcut: always the bracket scans."""
    text = strip_markdown_fences(raw)
    bare = bare_findings_array(text)
    return bare if bare is not None else scanned_reading(text)


def _outcome(fn: Any, raw: str) -> tuple[str, Any]:
    try:
        value = fn(raw)
        return ("ok", value.model_dump() if isinstance(value, ParsedOutput) else value)
    except Exception as exc:  # the error (type and message) must match as well
        return ("error", f"{type(exc).__name__}: {exc}")


_FINDING = {"severity": "P1", "location": "a.py:3", "description": "leaks a handle",
            "suggestion": "close it"}
PIECES = st.sampled_from([
    json.dumps({"approved": False, "findings": [_FINDING]}),
    json.dumps({"approved": True, "findings": []}),
    json.dumps({"findings": [_FINDING, {**_FINDING, "location": "b.py:1"}], "summary": "s"}),
    json.dumps(_FINDING),
    json.dumps({"type": "status", "data": {"nested": {"approved": True}}}),
    '{"approved": false, "findings": [' + json.dumps(_FINDING) + ",]}",  # trailing comma
    '{"approved": NaN, "findings": []}',
    '{"approved": true, "findings": [], "note": "a } brace and a { brace"}',
    "[1, 2]", "[" + json.dumps(_FINDING) + "]", "Here is my review:", "\n", " done.",
    "```json\n", "\n```", "{", "}", '"', "\\",
])


@settings(max_examples=400, deadline=None)
@given(st.lists(PIECES, min_size=1, max_size=5).map("".join))
def test_one_decode_path_equals_the_full_reading(raw: str) -> None:
    assert _outcome(parse_default, raw) == _outcome(_full_reading, raw)


def test_a_second_object_after_the_first_still_takes_the_full_reading() -> None:
    raw = '{"approved": true, "findings": []} then ' + json.dumps(
        {"approved": False, "findings": [_FINDING]})
    assert parse_default(raw).findings[0].location == "a.py:3"


ARRAY_PIECES = st.sampled_from([
    "[", "]", "{", "}", ",", '"', '"a]"', '"b[{"', "\\", "1", "NaN", "null", " ", "\n",
    json.dumps(_FINDING), "[1, 2,]", "[]", "x",
])


@settings(max_examples=400, deadline=None)
@given(st.lists(ARRAY_PIECES, max_size=8).map(lambda pieces: "[" + "".join(pieces)))
def test_external_array_one_decode_equals_the_bracket_count(text: str) -> None:
    """``mmr reconcile --input`` of an array: the C decode agrees with the ``[]`` count."""
    assert _outcome(external._extract, text) == _outcome(
        lambda t: external._decode_array(t, 0, BracketIndex(t, "[]")), text)
