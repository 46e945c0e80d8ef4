"""Straightforward (quadratic) scanners written from the spec's words, used as test oracles.

The production scanners answer the same questions in linear time; property tests check
that both give the same outcome on random bracket soup.
"""

from __future__ import annotations

import json
from typing import Any

from mmr.parsers.text import decode_json, fix_trailing_commas

PAIRS = {"{": "}", "[": "]"}


def naive_scan(text: str, start: int, brackets: str = "{}[]") -> tuple[str, int]:
    """('balanced', end) | ('mismatch', at) | ('unclosed', -1), walking from ``start``."""
    openers, closers = set(brackets[0::2]), set(brackets[1::2])
    stack: list[str] = []
    in_string = False
    i = start
    while i < len(text):
        char = text[i]
        if in_string:
            if char == "\\":
                i += 1
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in openers:
            stack.append(char)
        elif char in closers:
            if PAIRS[stack[-1]] != char:
                return ("mismatch", i)
            stack.pop()
            if not stack:
                return ("balanced", i)
        i += 1
    return ("unclosed", -1)


def _decode(candidate: str) -> Any:
    return decode_json(fix_trailing_commas(candidate))


def naive_last_object(text: str) -> tuple[str, Any]:
    """('ok', value) or ('error', kind) following the unwrap rules step by step."""
    last_good: Any = None
    first_error: str | None = None
    broken = False
    pos = 0
    while True:
        start = text.find("{", pos)
        if start < 0:
            break
        kind, end = naive_scan(text, start)
        if kind == "mismatch":
            first_error = first_error or "mismatch"
            pos = start + 1
            continue
        if kind == "unclosed":
            first_error = first_error or "unbalanced"
            broken = broken or last_good is not None
            break
        try:
            last_good = _decode(text[start : end + 1])
            broken = False
        except (ValueError, RecursionError):
            first_error = first_error or "json"
            broken = broken or last_good is not None
        pos = end + 1
    if broken:
        return ("error", "truncated")
    if last_good is not None:
        return ("ok", last_good)
    if first_error:
        return ("error", first_error)
    return ("error", "roots" if "[" in text else "none")


def naive_any_value(text: str) -> tuple[str, Any]:
    """('ok', value) or ('error', kind) following the object-extraction rules step by step."""
    first_error: str | None = None
    for start, char in enumerate(text):
        if char not in "{[":
            continue
        kind, end = naive_scan(text, start)
        if kind == "balanced":
            try:
                return ("ok", _decode(text[start : end + 1]))
            except (ValueError, RecursionError):
                first_error = first_error or "json"
        else:
            first_error = first_error or kind
    return ("error", first_error or "none")


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True)
