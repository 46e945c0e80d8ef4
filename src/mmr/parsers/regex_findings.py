"""``regex-findings``: one finding per match of a JavaScript-flavoured pattern.

Patterns are written for MMR 4.0.1's JavaScript engine, so they are translated:
named groups ``(?<n>…)`` and back-references ``\\k<n>``, and, without the ``m`` flag, a
``$`` that anchors only at the very end of the text. Flags: ``g`` (every match, else the
first), ``i``, ``m``, ``s``, ``y`` (sticky: each match starts where the last one ended);
``u``, ``v`` and ``d`` change nothing in Python.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from mmr.models import Finding, ParsedOutput
from mmr.parsers.errors import ParseError
from mmr.parsers.specs import RegexFindingsSpec
from mmr.vocabulary import SEVERITIES

_SEVERITIES = frozenset(SEVERITIES)
BLANK_CAPTURE = "regex-findings parser requires non-empty location and description captures"
_FLAG_BITS = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL}


def translate_js_pattern(pattern: str, *, multiline: bool) -> str:
    """Rewrite JavaScript-only syntax; escapes and character classes are copied untouched."""
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            close = pattern.find(">", i + 3) if pattern.startswith("k<", i + 1) else -1
            if not in_class and close > 0:
                out.append(f"(?P={pattern[i + 3 : close]})")
                i = close + 1
            else:
                out.append(pattern[i : i + 2])
                i += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif pattern.startswith("(?<", i) and not pattern.startswith(("(?<=", "(?<!"), i):
            out.append("(?P<")
            i += 3
            continue
        elif char == "$" and not multiline:
            out.append(r"\Z")  # JavaScript's $ never matches before a final newline
            i += 1
            continue
        out.append(char)
        i += 1
    return "".join(out)


@lru_cache(maxsize=128)
def compile_js_regex(pattern: str, flags: str) -> re.Pattern[str]:
    """Compile a config pattern; ValueError names the pattern (config load and parse time)."""
    bits = 0
    for flag in flags:
        bits |= _FLAG_BITS.get(flag, 0)
    try:
        return re.compile(translate_js_pattern(pattern, multiline="m" in flags), bits)
    except (re.error, OverflowError, RecursionError) as exc:  # a{4294967296}, 3000 nested (
        raise ValueError(f"Invalid regular expression: /{pattern}/{flags}: {exc}") from None


def iter_matches(regex: re.Pattern[str], text: str, flags: str) -> Iterator[re.Match[str]]:
    """Matches as JavaScript's ``exec`` loop yields them, empty matches stepping one character."""
    sticky = "y" in flags
    position = 0
    while position <= len(text):
        match = regex.match(text, position) if sticky else regex.search(text, position)
        if match is None:
            return
        yield match
        if "g" not in flags:
            return
        position = match.end() + (1 if match.end() == match.start() else 0)


def _capture(match: re.Match[str], group: int | None) -> str | None:
    if group is None or group > (match.re.groups or 0):
        return None
    return match.group(group)


def parse_regex_findings(raw: str, spec: RegexFindingsSpec) -> ParsedOutput:
    """Findings from the raw text (no fence stripping); one blank capture fails them all."""
    try:
        regex = compile_js_regex(spec.pattern, spec.flags)
    except ValueError as exc:
        raise ParseError(str(exc)) from None
    fields = spec.fields
    findings: list[Finding] = []
    for match in iter_matches(regex, raw, spec.flags):
        location = _capture(match, fields.location)
        description = _capture(match, fields.description)
        if not location or not location.strip() or not description or not description.strip():
            raise ParseError(BLANK_CAPTURE)
        severity = _capture(match, fields.severity)
        optional = {
            key: value
            for key, value in (("id", _capture(match, fields.id)),
                               ("category", _capture(match, fields.category)))
            if value is not None
        }
        findings.append(
            Finding(severity=severity if severity in _SEVERITIES else spec.default_severity,
                    location=location, description=description,
                    suggestion=_capture(match, fields.suggestion) or "", **optional)
        )
    summary = f"Parsed {len(findings)} regex finding(s)." if findings else "No regex findings."
    return ParsedOutput(approved=not findings, findings=findings, summary=summary)
