"""Text clean-up shared by the JSON parsers: fences, trailing commas, strict decoding.

MMR 4.0.1 runs JavaScript regular expressions; the patterns here spell out the
JavaScript meaning of ``\\s``, ``^`` and ``$`` so that the same bytes give the same text.
"""

from __future__ import annotations

import json
import re
from typing import Any

#: JavaScript's ``\s`` (ECMAScript WhiteSpace and LineTerminator); Python's differs slightly.
JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
#: Characters after which a JavaScript multiline ``^`` matches, and before which ``$`` does.
_JS_LINE_END = "\n\r\u2028\u2029"

_OPENING_FENCE = re.compile(rf"(?:^|(?<=[\r\u2028\u2029]))```(?:json)?[{JS_SPACE}]*\n?",
                            re.MULTILINE)
_CLOSING_FENCE = re.compile(rf"\n?```[{JS_SPACE}]*(?=[{_JS_LINE_END}]|\Z)")

_TRAILING_COMMA = re.compile(rf",[{JS_SPACE}]*(?=[}}\]])")
# A JSON string (possibly unterminated at the end of the text), or a trailing comma.
_STRING_OR_TRAILING_COMMA = re.compile(
    rf'("[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z))|,[{JS_SPACE}]*(?=[}}\]])', re.DOTALL
)


def strip_markdown_fences(text: str) -> str:
    """Remove ```` ```json ```` openers at line starts, then closing ```` ``` ```` fences."""
    if "```" not in text:
        return text
    return _CLOSING_FENCE.sub("", _OPENING_FENCE.sub("", text))


def fix_trailing_commas(text: str) -> str:
    """Delete every comma (and the whitespace after it) that precedes ``}`` or ``]``.

    Text inside JSON strings is left alone (MMR 4.0.1 rewrites it too).
    """
    if _TRAILING_COMMA.search(text) is None:
        return text
    return _STRING_OR_TRAILING_COMMA.sub(lambda m: m.group(1) or "", text)


def _reject_constant(name: str) -> Any:
    # Python accepts NaN and Infinity by default; JSON (and MMR 4.0.1) does not.
    raise ValueError(f"Unexpected token {name} in JSON")


# Longer digit runs may not fit a float; below this every int converts exactly as JS would.
_MAX_EXACT_INT_DIGITS = 308


def _parse_int(digits: str) -> int | float:
    # JavaScript reads every number as a double, so a 10,000-digit integer is Infinity
    # there; Python's int() refuses more than 4,300 digits, which failed the whole reply.
    if len(digits) > _MAX_EXACT_INT_DIGITS:
        return float(digits)
    return int(digits)


JSON_DECODER = json.JSONDecoder(parse_constant=_reject_constant, parse_int=_parse_int)


def decode_json(text: str) -> Any:
    """Decode strict JSON: no NaN/Infinity, no comments, last duplicate key wins."""
    return JSON_DECODER.decode(text)


def decode_candidate(candidate: str) -> Any:
    """Decode a candidate as MMR 4.0.1 does: trailing commas removed, then strict JSON."""
    return decode_json(fix_trailing_commas(candidate))
