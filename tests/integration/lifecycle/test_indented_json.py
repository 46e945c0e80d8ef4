"""The fast indented encoder writes exactly what ``json.dumps(indent=2)`` writes."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from mmr.formatters.indented_json import dumps_indented

_scalars = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True)
            | st.text())
_values = st.recursive(
    _scalars,
    lambda inner: (st.lists(inner, max_size=5) | st.tuples(inner, inner)
                   | st.dictionaries(st.text(max_size=8), inner, max_size=5)),
    max_leaves=40,
)


@settings(max_examples=400, deadline=None)
@given(_values)
def test_same_text_as_the_standard_library(value: Any) -> None:
    assert dumps_indented(value) == json.dumps(value, indent=2, ensure_ascii=False)


def test_layouts_and_fallbacks() -> None:
    document = {"a": [], "b": {}, "c": ["x", 1, None], "d": "ü\n\"", "e": [["s"], {"k": 1.5}]}
    assert dumps_indented(document) == json.dumps(document, indent=2, ensure_ascii=False)
    odd = {1: "int key", "n": float("inf"), "t": (True, False)}
    assert dumps_indented(odd) == json.dumps(odd, indent=2, ensure_ascii=False)
    lone = {"s": "half \ud83d of an emoji"}
    assert dumps_indented(lone) == json.dumps(lone, indent=2, ensure_ascii=False)
