"""Find the JSON inside a reply: first object, last object, first value.

Each scanner keeps MMR 4.0.1's choice of candidate and its error messages; all of
them run in linear time (see :mod:`mmr.parsers.brackets`).
"""

from __future__ import annotations

import json
import re
from typing import Any

from mmr.parsers.brackets import Balanced, BracketIndex, Mismatched
from mmr.parsers.errors import MismatchError, ParseError, UnbalancedError
from mmr.parsers.plausible import PlausibilityIndex
from mmr.parsers.text import JSON_DECODER, decode_candidate

NO_OBJECT = "No JSON object found in output"
NO_OBJECT_ROOTS = (
    "No JSON object found in output (default-last scans only object roots; "
    "a top-level array is not supported)"
)
NO_VALUE = "No JSON object or array found in output"
UNBALANCED_BRACES = "Unbalanced braces in JSON output"
UNBALANCED_BRACKETS = "Unbalanced brackets in JSON output"
TRUNCATED_TAIL = (
    "Trailing JSON after the last complete object failed to parse — "
    "the final reply may be truncated"
)
_MISMATCH_SNIPPET_LIMIT = 200

_BRACE_TOKENS = re.compile(r'["\\{}]')
_ANY_OPENER = re.compile(r"[{\[]")
#: Only finds where a valid value ends (its own hooks would reject what the parse decides).
_END_FINDER = json.JSONDecoder()


def extract_first_object(text: str) -> str:
    """The text from the first ``{`` to its matching ``}``, counting braces only."""
    start = text.find("{")
    if start < 0:
        raise ParseError(NO_OBJECT)
    try:  # a valid object ends where the brace count ends; the C decoder finds it fastest
        _, end = _END_FINDER.raw_decode(text, start)
    except (ValueError, RecursionError):
        return _count_braces(text, start)
    return text[start:end]


def _count_braces(text: str, start: int) -> str:
    depth = 0
    in_string = False
    skip_until = -1  # a backslash in a string hides the next character
    for token in _BRACE_TOKENS.finditer(text, start):
        at = token.start()
        if at < skip_until:
            continue
        char = text[at]
        if in_string:
            if char == "\\":
                skip_until = at + 2
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return text[start : at + 1]
    raise UnbalancedError(UNBALANCED_BRACES)


def scan_error(text: str, start: int, result: Mismatched | None) -> ParseError:
    """The error a bracket-stack scan from ``start`` raises: mismatch or unbalanced."""
    if result is not None:
        snippet = text[start : result.at + 1]
        if len(snippet) > _MISMATCH_SNIPPET_LIMIT:
            snippet = snippet[:_MISMATCH_SNIPPET_LIMIT] + "…"
        return MismatchError(f"Mismatched JSON delimiters near: {snippet}")
    return UnbalancedError(UNBALANCED_BRACES if text[start] == "{" else UNBALANCED_BRACKETS)


def extract_last_object(text: str) -> dict[str, Any]:
    """The last complete object; a broken tail after it fails the parse (``default-last``)."""
    index = BracketIndex(text)
    last_good: dict[str, Any] | None = None
    first_error: Exception | None = None
    tail_broken = False
    resume = 0
    for entry, start in index.opener_indices():
        if start < resume or text[start] != "{":
            continue
        result = index.scan_index(entry)
        if isinstance(result, Mismatched):
            first_error = first_error or scan_error(text, start, result)
            continue  # step one character: later openers inside it are still candidates
        if not isinstance(result, Balanced):
            first_error = first_error or scan_error(text, start, None)
            tail_broken = tail_broken or last_good is not None
            break
        try:
            last_good = decode_candidate(text[start : result.end + 1])
            tail_broken = False
        except Exception as exc:  # any decode failure is a broken candidate
            first_error = first_error or exc
            tail_broken = tail_broken or last_good is not None
        resume = result.end + 1  # objects nested in this candidate are not candidates
    if tail_broken:
        raise ParseError(TRUNCATED_TAIL)
    if last_good is not None:
        return last_good
    if first_error is not None:
        raise first_error
    raise ParseError(NO_OBJECT_ROOTS if "[" in text else NO_OBJECT)


def top_level_objects(text: str) -> list[dict[str, Any]]:
    """Every decodable object not nested in another candidate, in reply order.

    An object that fails to decode is skipped and scanning resumes inside it, as
    :func:`extract_last_object` does.
    """
    index = BracketIndex(text)
    found: list[dict[str, Any]] = []
    resume = 0
    for entry, start in index.opener_indices():
        if start < resume or text[start] != "{":
            continue
        result = index.scan_index(entry)
        if not isinstance(result, Balanced):
            if isinstance(result, Mismatched):
                continue
            break
        try:
            value = decode_candidate(text[start : result.end + 1])
        except Exception:  # noqa: S112 - a broken candidate is not an object
            continue
        if isinstance(value, dict):
            found.append(value)
        resume = result.end + 1
    return found


def _decode_error(text: str, start: int, end: int) -> Exception | None:
    """The error decoding this candidate raises (computed only for the one reported)."""
    try:
        decode_candidate(text[start : end + 1])
    except Exception as exc:
        return exc
    return None


def extract_any_value(text: str) -> Any:
    """The first ``{``/``[`` candidate, at any position, that decodes (envelopes).

    Runs in linear time except when many nested candidates all look like JSON and still
    fail to decode; candidates that certainly fail are skipped without decoding.
    """
    first = _ANY_OPENER.search(text)
    if first is None:
        raise ParseError(NO_VALUE)
    try:
        # Fast path: the first candidate is usually the whole envelope. A value decoded in
        # place is exactly the balanced candidate the full scan would try first.
        return JSON_DECODER.raw_decode(text, first.start())[0]
    except Exception:  # noqa: S110 - any failure falls through to the full scan
        pass
    index = BracketIndex(text)
    plausible = PlausibilityIndex(index)
    first_error: Exception | None = None
    first_undecodable: tuple[int, int] | None = None  # its error is computed only if reported
    for entry, start in index.opener_indices(first.start()):
        result = index.scan_index(entry)
        if not isinstance(result, Balanced):
            if first_error is None and first_undecodable is None:
                mismatch = result if isinstance(result, Mismatched) else None
                first_error = scan_error(text, start, mismatch)
            continue
        if plausible.may_decode(entry, result.end):
            try:
                return decode_candidate(text[start : result.end + 1])
            except Exception:  # noqa: S110 - remembered below, the scan goes on
                pass
        if first_error is None and first_undecodable is None:
            first_undecodable = (start, result.end)
    if first_undecodable is not None:
        first_error = _decode_error(text, *first_undecodable)
    raise first_error or ParseError(NO_VALUE)
