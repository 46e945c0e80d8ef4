"""The four built-in named parsers: default, default-last, gemini, doc-conformance."""

from __future__ import annotations

from typing import Any

from mmr.models import ParsedOutput
from mmr.parsers.echo import after_echo
from mmr.parsers.errors import ParseError
from mmr.parsers.registry import register_parser
from mmr.parsers.scanners import extract_first_object, extract_last_object, top_level_objects
from mmr.parsers.text import (
    JSON_DECODER,
    decode_candidate,
    decode_json,
    strip_markdown_fences,
)
from mmr.parsers.validate import (
    bare_finding,
    has_blocking,
    lenient_finding,
    lenient_reply,
    strict_finding,
)

_FINDING_KEYS = frozenset({"severity", "location", "description"})


def bare_findings_array(text: str) -> ParsedOutput | None:
    """A reply that is nothing but a JSON array of finding objects (an mmr addition).

    MMR 4.0.1 takes the first element as "the reply" and loses every finding. mmr
    reads the elements as findings, approved unless one is P0 or P1.
    Anything else returns None and is parsed as MMR 4.0.1 does: prose around the
    array, or elements that are not finding-shaped objects (claude's events array must
    not pass for findings).
    """
    body = text.strip()
    if not (body.startswith("[") and body.endswith("]")):
        return None
    try:
        items = decode_candidate(body)
    except Exception:
        return None
    if not isinstance(items, list) or not all(
            isinstance(item, dict) and not _FINDING_KEYS.isdisjoint(item) for item in items):
        return None
    findings = [lenient_finding(item) for item in items]
    return ParsedOutput(approved=not has_blocking(findings), findings=findings, summary="")


def _only_object(text: str) -> tuple[str, Any] | None:
    """``(candidate, value)`` when the first object is valid JSON and no ``{`` follows it.

    Then it is the only top-level candidate, which the issue-13 rule leaves alone, and it
    is the first object decoded as MMR 4.0.1 does (strict JSON needs no trailing-comma
    fix), so one C decode replaces the bracket scans and the two decodes.
    """
    start = text.find("{")
    if start < 0:
        return None
    try:
        value, end = JSON_DECODER.raw_decode(text, start)
    except (ValueError, RecursionError):
        return None
    return (text[start:end], value) if text.find("{", end) < 0 else None


@register_parser("default")
def parse_default(raw: str) -> ParsedOutput:
    """Fences stripped, the first object taken, leniently validated.

    mmr: when the reply holds several top-level objects and the first is not
    its only review-shaped one, the last review-shaped object wins — a reply that opens
    with a clean ``{"approved": true, "findings": []}`` and then reports its findings is
    judged on the findings. With a single candidate MMR 4.0.1's rule stands.
    """
    text = strip_markdown_fences(after_echo(raw))
    bare = bare_findings_array(text)
    if bare is not None:
        return bare
    only = _only_object(text)
    return scanned_reading(text) if only is None else _first_object_reply(text, *only)


def scanned_reading(text: str) -> ParsedOutput:
    """``default`` by the bracket scans: what :func:`_only_object` shortcuts, in full."""
    if text.count("{") > 1:
        objects = top_level_objects(text)
        # Review replies, not example findings or status events.
        reviews = [value for value in objects if "findings" in value or "approved" in value]
        if len(reviews) > 1 or (reviews and reviews[0] is not objects[0]):
            return lenient_reply(reviews[-1])
    candidate = extract_first_object(text)
    return _first_object_reply(text, candidate, decode_candidate(candidate))


def _first_object_reply(text: str, candidate: str, value: Any) -> ParsedOutput:
    """The first object's reply: a bare finding when it is the whole text."""
    if candidate == text.strip():
        single = bare_finding(value)
        if single is not None:
            return single
    return lenient_reply(value)


@register_parser("default-last")
def parse_default_last(raw: str) -> ParsedOutput:
    """Like ``default``, but the last complete object wins (schema-constrained output)."""
    text = strip_markdown_fences(after_echo(raw))
    bare = bare_findings_array(text)
    if bare is not None:
        return bare
    return lenient_reply(extract_last_object(text))


@register_parser("gemini")
def parse_gemini(raw: str) -> ParsedOutput:
    """Unwrap ``{"response": "<reply>"}`` when present, else read the reply as ``default``.

    The envelope is the last top-level object holding a ``response`` string. MMR 4.0.1
    takes the first object, which in a reply that echoes its prompt is the prompt's
    Output Format example; with one object in the reply both rules read the same.
    """
    text = strip_markdown_fences(after_echo(raw))
    envelopes = [value["response"] for value in top_level_objects(text)
                 if isinstance(value.get("response"), str)] if '"response"' in text else []
    if envelopes:
        try:
            return parse_default(envelopes[-1])
        except Exception:  # noqa: S110 - as MMR 4.0.1 does: re-read the whole reply
            pass
    return parse_default(text)


NOT_AN_ARRAY = (
    "doc-conformance output is valid JSON but not an array — check that "
    "`scaffold observe audit --output-mode=mmr-findings` emits a JSON array"
)


@register_parser("doc-conformance")
def parse_doc_conformance(raw: str) -> ParsedOutput:
    """The whole text is a JSON array of strictly valid findings.

    Decode and validation errors are parse failures, not P1 findings that the diff
    filter would silently drop.
    """
    try:
        items = decode_json(raw)
    except Exception as exc:
        raise ParseError(f"doc-conformance output is not valid JSON: {exc}") from exc
    if not isinstance(items, list):
        raise ParseError(NOT_AN_ARRAY)
    try:
        findings = [strict_finding(item) for item in items]
    except ParseError as exc:
        raise ParseError(f"doc-conformance output failed validation: {exc}") from exc
    blocking = has_blocking(findings)
    summary = f"doc-conformance: {len(findings)} finding(s)" + (" (blocking)" if blocking else "")
    return ParsedOutput(approved=not blocking, findings=findings, summary=summary)
