"""Text normalisation behind ``finding_key``.

Each function reproduces MMR 4.0.1's rule literally, quirks included: keys computed from
the results must equal MMR 4.0.1's byte for byte.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from mmr.reconcile.jstext import WS_CHARS, WS_CLASS, collapse_ws, ends_with_ws, starts_with_ws, trim

_AI = re.ASCII | re.IGNORECASE
_LINE_SPAN = re.compile(f"(?::\\d+(?::\\d+)?(?:-\\d+)?|[{WS_CLASS}]*\\(line \\d+\\))\\Z", _AI)
_CODE_SPAN = re.compile(r"`([^`]*)`")
_LINE_MENTION = re.compile(f"\\b(?:at[{WS_CLASS}]+)?line \\d+\\b", _AI)
_AT_NUMBER = re.compile(r"\bat \d+(?!\.\d)(?!\d)\b\.?", _AI)
_UNIT_AFTER = re.compile(
    f"[{WS_CLASS}]*(?:%|\\b(?:seconds?|minutes?|hours?|items?|bytes?|kb|mb|gb|pixels?"
    "|elements?|chars?|characters?|ms|s)\\b)",
    _AI,
)
_LOCATION_VERB_END = re.compile(r"\b(?:found|reported|detected|raised|located|declared|defined)\Z",
                                _AI)
_SEVERITY_PREFIX = re.compile(
    f"\\A[{WS_CLASS}]*(?:p[0-3]|critical|high|medium|low|info)[{WS_CLASS}]*:[{WS_CLASS}]*", _AI
)
_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_MIXED_CASE = re.compile(r"[a-z][A-Z]|[A-Z][a-z]+[A-Z]|[A-Z]{2,}[a-z]")
_ALL_CAPS = re.compile(r"[A-Z0-9_]{3,}")
#: The location verb is at most 8 characters; one more shows whether ``\b`` precedes it.
_VERB_WINDOW = 9


def strip_dot_slash(location: str) -> str:
    """Drop one leading ``./`` (after trimming), so ``./a.py:5`` and ``a.py:5`` are one finding.

    mmr-only; any other location is returned unchanged.
    """
    trimmed = trim(location)
    return trimmed[2:] if trimmed.startswith("./") else location


def strip_line_span(location: str) -> str:
    """Drop one trailing ``:N``, ``:N:M``, ``:N-M``, ``:N:M-K`` or `` (line N)`` (any case)."""
    return _LINE_SPAN.sub("", location, count=1)


def normalize_location(location: str) -> str:
    """Lower-case, trim, and drop one trailing line span; no trim afterwards."""
    return strip_line_span(trim(location.lower()))


def normalize_category(category: str | None) -> str:
    """Lower-cased category, ``""`` when absent; deliberately not trimmed."""
    return category.lower() if isinstance(category, str) else ""


def apply_outside_code_spans(text: str, prose: Callable[[str], str]) -> str:
    """Apply ``prose`` between code spans, keeping the spans verbatim.

    A part is skipped when empty; otherwise one space goes before it when the output is
    not empty and its raw neighbour text had whitespace on that side.
    """
    if "`" not in text:
        return trim(prose(text))
    out: list[str] = []
    pos = 0
    for span in _CODE_SPAN.finditer(text):
        before = text[pos : span.start()]
        piece = prose(before)
        if piece:
            if out and starts_with_ws(before):
                out.append(" ")
            out.append(piece)
        if out and ends_with_ws(before):
            out.append(" ")
        out.append(span.group(0))
        pos = span.end()
    tail = text[pos:]
    piece = prose(tail)
    if piece:
        if out and starts_with_ws(tail):
            out.append(" ")
        out.append(piece)
    return trim("".join(out))


def _follows_location_verb(before: str) -> bool:
    """``before`` ends with a location verb plus whitespace (``found `` in ``found at 42``).

    Only the last few characters can match, so only they are searched.
    """
    stripped = before.rstrip(WS_CHARS)
    if len(stripped) == len(before):
        return False
    return _LOCATION_VERB_END.search(stripped[-_VERB_WINDOW:]) is not None


def _strip_at_locations(segment: str) -> str:
    """Delete ``at N`` only where it names a location."""
    def replace(match: re.Match[str]) -> str:
        if _UNIT_AFTER.match(segment[match.end() :]):
            return match.group(0)
        if _follows_location_verb(segment[: match.start()]):
            return ""
        return match.group(0)

    return _AT_NUMBER.sub(replace, segment)


def _description_prose(segment: str) -> str:
    text = segment.lower()
    # The substring checks only skip regexes that could not match (speed, not meaning).
    if "line " in text:
        text = _LINE_MENTION.sub("", text)
    if "at " in text:
        text = _strip_at_locations(text)
    text = _SEVERITY_PREFIX.sub("", text, count=1)
    return collapse_ws(text)


def _fold_token(match: re.Match[str]) -> str:
    token = match.group(0)
    if _MIXED_CASE.search(token) or _ALL_CAPS.fullmatch(token):
        return token
    return token.lower()


def _suggestion_prose(segment: str) -> str:
    return collapse_ws(_TOKEN.sub(_fold_token, segment))


def normalize_description(description: str) -> str:
    """Description with code spans kept and prose noise (lines, severities) removed."""
    return apply_outside_code_spans(description, _description_prose)


def normalize_suggestion(suggestion: str) -> str:
    """Suggestion with non-identifier ASCII words lower-cased and spaces collapsed."""
    return apply_outside_code_spans(suggestion, _suggestion_prose)
