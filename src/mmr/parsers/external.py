"""Findings an outside reviewer hands to ``mmr reconcile --input``.

Accepted: a reply object with a ``findings`` array, or a bare array of findings, with
fences and prose around it. Validation is strict, since no model's habits need excusing.
"""

from __future__ import annotations

import errno
import sys
from pathlib import Path
from typing import Any, TextIO

from mmr.errors import ReconcileInputError
from mmr.models import ParsedOutput
from mmr.parsers.brackets import Balanced, BracketIndex
from mmr.parsers.errors import ParseError
from mmr.parsers.scanners import extract_first_object
from mmr.parsers.text import (
    JSON_DECODER,
    decode_candidate,
    strip_markdown_fences,
)
from mmr.parsers.validate import has_blocking, strict_finding, strict_reply

INJECTED_SUMMARY = "Injected external findings"
INVALID_FORMAT = (
    "Invalid input format: expected JSON object with findings array or bare array of findings"
)
UNBALANCED_ARRAY = "Unbalanced brackets in array input"
NO_INPUT_JSON = "No JSON object or array found in input"


class InvalidExternalInput(ReconcileInputError):
    """The input decoded badly or failed validation; ``detail`` is the bare message."""

    def __init__(self, detail: str) -> None:
        super().__init__(f"Invalid input: {detail}")
        self.detail = detail


def _decode_array(text: str, start: int, index: BracketIndex) -> Any:
    """Decode the array opened at ``start``, counting ``[`` and ``]`` only."""
    result = index.scan(start)
    if not isinstance(result, Balanced):
        raise ParseError(UNBALANCED_ARRAY)
    return decode_candidate(text[start : result.end + 1])


def _first_array(text: str) -> Any:
    """The first ``[`` candidate that decodes; prose brackets before it are stepped over."""
    index = BracketIndex(text, "[]")
    first_error: Exception | None = None
    for _, start in index.opener_indices():
        try:
            return _decode_array(text, start, index)
        except Exception as exc:
            first_error = first_error or exc
    raise first_error or ParseError(NO_INPUT_JSON)


def _extract(text: str) -> Any:
    if text.startswith("["):
        try:  # a strict-JSON array ends where the bracket count ends: one C decode
            return JSON_DECODER.raw_decode(text)[0]
        except (ValueError, RecursionError):
            return _decode_array(text, 0, BracketIndex(text, "[]"))
    if text.startswith("{"):
        return decode_candidate(extract_first_object(text))
    try:
        wrapper = decode_candidate(extract_first_object(text))
        is_reply = isinstance(wrapper, dict) and isinstance(wrapper.get("findings"), list)
        if is_reply and not isinstance(wrapper.get("severity"), str):
            return wrapper
    except Exception:  # noqa: S110 - prose with braces: look for an array instead
        pass
    return _first_array(text)


def normalize_external_input(raw: str) -> ParsedOutput:
    """Validate external findings strictly; raise InvalidExternalInput (exit 5) otherwise."""
    text = strip_markdown_fences(raw).strip()
    try:
        value = _extract(text)
        if isinstance(value, list):
            findings = [strict_finding(item) for item in value]
            return ParsedOutput(approved=not has_blocking(findings), findings=findings,
                                summary=INJECTED_SUMMARY)
        if isinstance(value, dict) and isinstance(value.get("findings"), list):
            return strict_reply(value)
    except (ValueError, RecursionError) as exc:
        raise InvalidExternalInput(str(exc)) from None
    raise InvalidExternalInput(INVALID_FORMAT)


def read_input(source: str, stdin: TextIO | None = None) -> str:
    """The input text: ``-`` is stdin, inline JSON is itself, anything else is a file path."""
    if source == "-":
        return (stdin or sys.stdin).read()
    if source.lstrip().startswith(("{", "[")):
        return source
    not_found = ReconcileInputError(
        f'Input not found: "{source}" is not a file, stdin (-), or valid JSON'
    )
    try:
        return Path(source).read_text(encoding="utf-8")
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        raise not_found from None
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            raise not_found from None
        raise ReconcileInputError(str(exc)) from None
    except UnicodeDecodeError as exc:
        raise ReconcileInputError(f"Input {source!r} is not UTF-8 text: {exc}") from None
    except ValueError:  # a NUL in the name: no file can have it
        raise not_found from None
