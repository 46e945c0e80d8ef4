"""Decoded JSON → Findings: lenient for model replies, strict for other producers.

Coercion is done by hand, so a reply's success never depends on pydantic's own rules;
the pydantic models are built only from values already known to be valid.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from mmr.models import Finding, ParsedOutput
from mmr.parsers.errors import ParseError
from mmr.vocabulary import SEVERITIES

_SEVERITIES = frozenset(SEVERITIES)
MISSING_FINDINGS = (
    'missing findings: the reply has no "findings" array and is not "approved": true'
)
MALFORMED_FINDING = "Malformed finding"
FINDINGS_NOT_A_LIST = 'unusable reply: "findings" is {kind}, not an array of finding objects'
NO_FINDING_OBJECTS = 'unusable reply: "findings" holds no objects ({count} non-object item(s))'
DISAPPROVED_EMPTY = (
    'unusable reply: "approved": false with no findings — the reviewer objected without '
    "saying to what"
)
BLANK_DESCRIPTION = "unusable reply: finding {number} has a blank description"
_BARE_FINDING_KEYS = frozenset({"severity", "location"})


def js_number_text(value: float) -> str:
    """``String(n)`` of a JavaScript number, so ``1.0`` reads ``1`` and ``1e-7`` reads ``1e-7``."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    _, digit_tuple, exponent = Decimal(repr(abs(value))).as_tuple()
    if not isinstance(exponent, int):  # only NaN/Infinity have a letter exponent
        return repr(value)
    digits = "".join(map(str, digit_tuple)).rstrip("0")
    point = exponent + len(digit_tuple)  # the decimal point sits after this many digits
    count = len(digits)
    if count <= point <= 21:
        text = digits + "0" * (point - count)
    elif 0 < point <= 21:
        text = f"{digits[:point]}.{digits[point:]}"
    elif -6 < point <= 0:
        text = "0." + "0" * -point + digits
    else:
        mantissa = digits[0] + (f".{digits[1:]}" if count > 1 else "")
        text = f"{mantissa}e{'+' if point >= 1 else '-'}{abs(point - 1)}"
    return sign + text


def _as_text(value: Any) -> str:
    """A non-string description as text: JavaScript's ``String()`` for scalars, JSON otherwise."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        # JavaScript numbers are doubles: integers beyond 2**53 lose their low digits.
        return str(value) if abs(value) < 2**53 else js_number_text(float(value))
    if isinstance(value, float):
        return js_number_text(value)
    # Objects and arrays: JSON text (MMR 4.0.1 prints "[object Object]").
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _optional_strings(record: dict[str, Any]) -> dict[str, str]:
    return {key: record[key] for key in ("id", "category", "replacement")
            if isinstance(record.get(key), str)}


def lenient_finding(item: Any) -> Finding:
    """Coerce one model-written finding; never fails."""
    if isinstance(item, list):
        item = {}  # MMR 4.0.1 reads an array as an object with no fields
    if not isinstance(item, dict):
        return Finding(severity="P2", location="unknown", description=MALFORMED_FINDING,
                       suggestion="")
    severity = item.get("severity")
    location = item.get("location")
    description = item.get("description")
    suggestion = item.get("suggestion")
    return Finding(
        severity=severity if isinstance(severity, str) and severity in _SEVERITIES else "P2",
        location=location if isinstance(location, str) else "unknown",
        description=description if isinstance(description, str) else _as_text(description),
        suggestion=suggestion if isinstance(suggestion, str) else "",
        **_optional_strings(item),
    )


def _json_kind(value: Any) -> str:
    if isinstance(value, str):
        return "a string"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, bool):
        return "a boolean"
    return "a number" if isinstance(value, int | float) else "null"


def _check_usable(value: dict[str, Any]) -> None:
    """mmr: replies that would otherwise read as a clean pass are failures."""
    findings = value.get("findings")
    if "findings" in value and findings is not None and not isinstance(findings, list):
        raise ParseError(FINDINGS_NOT_A_LIST.format(kind=_json_kind(findings)))
    if isinstance(findings, list):
        if findings and not any(isinstance(item, dict) for item in findings):
            raise ParseError(NO_FINDING_OBJECTS.format(count=len(findings)))
        if not findings and value.get("approved") is False:
            raise ParseError(DISAPPROVED_EMPTY)
        for number, item in enumerate(findings, 1):
            text = item.get("description") if isinstance(item, dict) else None
            if isinstance(text, str) and not text.strip():  # a finding that says nothing
                raise ParseError(BLANK_DESCRIPTION.format(number=number))


def bare_finding(value: Any) -> ParsedOutput | None:
    """A reply that is one finding object on its own: one finding, approved
    unless it is P0 or P1; None for anything else."""
    if not (isinstance(value, dict) and is_bare_finding(value)):
        return None
    finding = lenient_finding(value)
    return ParsedOutput(approved=not has_blocking([finding]), findings=[finding], summary="")


def is_bare_finding(value: dict[str, Any]) -> bool:
    """A finding object on its own: ``description`` plus ``severity`` or ``location``, and
    neither ``findings`` nor ``approved``."""
    return ("description" in value and not _BARE_FINDING_KEYS.isdisjoint(value)
            and "findings" not in value and "approved" not in value)


def lenient_reply(value: Any) -> ParsedOutput:
    """Coerce a decoded reply object; a reply with no findings and no ``approved: true`` fails."""
    if not isinstance(value, dict):
        raise ParseError("Parsed output is not an object")
    _check_usable(value)
    findings = value.get("findings")
    approved = value.get("approved")
    if not isinstance(findings, list):
        if approved is not True:
            raise ParseError(MISSING_FINDINGS)
        findings = []
    summary = value.get("summary")
    return ParsedOutput(approved=approved if isinstance(approved, bool) else False,
                        findings=[lenient_finding(item) for item in findings],
                        summary=summary if isinstance(summary, str) else "")


def strict_finding(item: Any) -> Finding:
    """Validate a doc-conformance or external finding; the first failed check raises."""
    if isinstance(item, list):
        item = {}  # an array passes the object check in MMR 4.0.1 and fails on severity
    if not isinstance(item, dict):
        raise ParseError("Finding must be an object")
    severity = item.get("severity")
    if not (isinstance(severity, str) and severity in _SEVERITIES):
        raise ParseError("Finding missing or invalid severity (must be P0-P3)")
    location = item.get("location")
    if not isinstance(location, str) or not location:
        raise ParseError("Finding missing location")
    description = item.get("description")
    if not isinstance(description, str) or not description:
        raise ParseError("Finding missing description")
    suggestion = item.get("suggestion")
    return Finding(severity=severity, location=location, description=description,
                   suggestion=suggestion if isinstance(suggestion, str) else "",
                   **_optional_strings(item))


def strict_reply(value: Any) -> ParsedOutput:
    """Validate a reply object strictly: findings must be an array of valid findings."""
    if not isinstance(value, dict):
        raise ParseError("Input must be an object")
    findings = value.get("findings")
    if not isinstance(findings, list):
        raise ParseError("Input findings must be an array")
    approved = value.get("approved")
    summary = value.get("summary")
    return ParsedOutput(approved=approved if isinstance(approved, bool) else False,
                        findings=[strict_finding(item) for item in findings],
                        summary=summary if isinstance(summary, str) else "")


def has_blocking(findings: Iterable[Finding]) -> bool:
    """True when any finding is P0 or P1 (the approval rule of bare arrays and doc-conformance)."""
    return any(finding.severity in ("P0", "P1") for finding in findings)
