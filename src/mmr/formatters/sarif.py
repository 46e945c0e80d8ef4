"""``--format sarif``: one SARIF 2.1.0 log for GitHub code scanning.

One run per review. Each reconciled finding is one result whose rule is its category
(``mmr/security``; see :mod:`mmr.formatters.annotation` for why not its severity), whose
``level`` is its severity (P0/P1 ``error``, P2 ``warning``, P3 ``note``) and whose
``partialFingerprints`` carry the line-independent ``finding_key``, so code scanning
follows an alert across runs and line drift exactly as acks do. Acknowledged findings are
reported with an ``accepted`` suppression and level ``none``.

Code scanning rejects the *whole* upload when one result has no artifact location, so a
finding that names no file (``unknown``, a document section) is anchored at the
repository root (``.``) and keeps its own words in ``properties.location``; a result about
a whole file or the repository gets the region of its first line. Every rule carries
``help`` (GitHub requires it) and the driver an ``informationUri``. Findings outside the
diff and unanchored ones follow the reconciled findings, with ``properties.place`` and
``properties.gated``; an unanchored one is always anchored at the repository root.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import mmr
from mmr.formatters.annotation import (
    SourceSpan,
    rule_id,
    rule_slug,
    source_span,
    sources_line,
    suggestion_text,
)
from mmr.formatters.json import dumps
from mmr.formatters.labels import off_diff_gated, off_diff_groups
from mmr.formatters.sanitize import json_escaped
from mmr.models import ReconciledFinding, ReconciledResults
from mmr.vocabulary import Severity

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"
FINGERPRINT_KEY = "mmrFindingKey/v1"
SRCROOT = "%SRCROOT%"
#: Where a finding that names no file is anchored (the repository root).
REPOSITORY_ROOT_URI = "."

#: The region of a result about a whole file (or the repository): code scanning shows a
#: result without a region nowhere useful, and the multitool warns (SARIF2017).
FILE_REGION = {"startLine": 1}

_SEVERITY_LEVELS: dict[str, str] = {"P0": "error", "P1": "error", "P2": "warning", "P3": "note"}


def render_sarif(results: ReconciledResults) -> str:
    """The SARIF log as 2-space JSON, non-ASCII raw (but the characters a terminal or a log
    would obey or hide, escaped), without a trailing newline."""
    return json_escaped(dumps(sarif_log(results)))


def sarif_log(results: ReconciledResults) -> dict[str, Any]:
    """The SARIF log as plain JSON data."""
    placed = [(None, f) for f in results.reconciled_findings] + [
        (place, f) for place, findings in off_diff_groups(results) for f in findings]
    rules = _rules([f for _, f in placed])
    index = {rule["id"]: position for position, rule in enumerate(rules)}
    gated = off_diff_gated(results)
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "mmr",
                "version": mmr.__version__,
                "semanticVersion": mmr.__version__,
                "informationUri": mmr.__url__,
                "rules": rules,
            }
        },
        "results": [_result(f, index, place, gated or place is None) for place, f in placed],
        "properties": _run_properties(results),
    }
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}


def _level(severity: Severity, gated: bool) -> str:
    """An ungated off-diff finding is never an ``error`` (it does not fail the review)."""
    level = _SEVERITY_LEVELS[severity]
    return "warning" if level == "error" and not gated else level


def _rules(findings: list[ReconciledFinding]) -> list[dict[str, Any]]:
    """One rule per category present, in order of first appearance.

    GitHub code scanning requires ``help`` on every rule (the SARIF multitool's GH2012).
    """
    help_uri = f"{mmr.__url__}/blob/main/docs/sarif.md#rules"
    rules: dict[str, dict[str, Any]] = {}
    for finding in findings:
        identifier = rule_id(finding.category)
        if identifier in rules:
            continue
        name = rule_slug(finding.category)
        rules[identifier] = {
            "id": identifier,
            "name": name,
            "shortDescription": {"text": f"Multi-model review finding: {name}"},
            "fullDescription": {
                "text": (
                    f"A {name} issue reported by one or more independent AI reviewers and "
                    "reconciled by mmr. The result's level is the finding's severity."
                )
            },
            "help": {"text": _help_text(name), "markdown": _help_markdown(name, help_uri)},
            "helpUri": help_uri,
            "defaultConfiguration": {"level": "warning"},
            "properties": {"tags": ["mmr", name]},
        }
    return list(rules.values())


def _help_text(name: str) -> str:
    return (
        f"mmr reports a {name} finding when independent AI reviewers flag one in the diff. "
        "Each result's message says what was found and what to do; its level is the "
        "finding's severity (P0/P1 error, P2 warning, P3 note) and its properties name the "
        "reviewers that agreed. Fix it, or acknowledge it with `mmr ack add <finding_key> "
        "--reason ...` when a person has judged it acceptable."
    )


def _help_markdown(name: str, help_uri: str) -> str:
    return (
        f"**{name}** findings come from independent AI reviewers, reconciled by mmr.\n\n"
        "- The message says what was found and what to do.\n"
        "- The level is the severity: P0/P1 `error`, P2 `warning`, P3 `note`.\n"
        "- `properties.sources` names the reviewers that agreed.\n\n"
        "Fix it, or acknowledge it with `mmr ack add <finding_key> --reason …` when a "
        f"person has judged it acceptable. [How mmr's SARIF is built]({help_uri})."
    )


def _result(finding: ReconciledFinding, rule_index: dict[str, int], place: str | None = None,
            gated: bool = True) -> dict[str, Any]:
    """One result; an off-diff finding (``place``) says so in its properties, and an
    unanchored one is a repository-level result."""
    identifier = rule_id(finding.category)
    result: dict[str, Any] = {
        "ruleId": identifier,
        "ruleIndex": rule_index[identifier],
        # An acknowledged finding is no live problem: a tool that counts by level (sarif-tools,
        # dashboards) must not count it, so its level is "none"; its severity stays in
        # properties and the suppression says why.
        "level": "none" if finding.acknowledged else _level(finding.severity, gated),
        "message": {"text": f"{suggestion_text(finding)}\n\n{sources_line(finding)}"},
        "locations": [_location("" if place == "unanchored" else finding.location)],
        "partialFingerprints": {FINGERPRINT_KEY: finding.finding_key},
    }
    if finding.acknowledged:
        suppression: dict[str, Any] = {"kind": "external", "status": "accepted"}
        if finding.ack_reason:
            suppression["justification"] = finding.ack_reason
        result["suppressions"] = [suppression]
    result["properties"] = _finding_properties(finding)
    if place is not None:
        result["properties"].update(place=place, gated=gated)
    return result


def _location(location: str) -> dict[str, Any]:
    span = source_span(location)
    if span is None:
        artifact = {"uri": REPOSITORY_ROOT_URI, "uriBaseId": SRCROOT}
        return {"physicalLocation": {"artifactLocation": artifact, "region": dict(FILE_REGION)}}
    artifact = {"uri": quote(span.path, safe="/"), "uriBaseId": SRCROOT}
    return {"physicalLocation": {"artifactLocation": artifact,
                                 "region": _region(span) or dict(FILE_REGION)}}


def _region(span: SourceSpan) -> dict[str, int]:
    if span.start_line is None:
        return {}
    region = {"startLine": span.start_line}
    if span.end_line is not None:
        region["endLine"] = span.end_line
    if span.start_column is not None:
        region["startColumn"] = span.start_column
    return region


def _finding_properties(finding: ReconciledFinding) -> dict[str, Any]:
    properties: dict[str, Any] = {
        "id": finding.display_id,
        "severity": finding.severity,
        "confidence": finding.confidence,
        "agreement": finding.agreement,
        "sources": list(finding.sources),
        "finding_key": finding.finding_key,
        "location": finding.location,
    }
    if finding.category is not None:
        properties["category"] = finding.category
    if finding.reported_confidence is not None:
        properties["reported_confidence"] = finding.reported_confidence
    return properties


def _run_properties(results: ReconciledResults) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    if results.job_id is not None:
        properties["job_id"] = results.job_id
    properties.update(
        verdict=results.verdict,
        summary=results.summary,
        fix_threshold=results.fix_threshold,
        advisory_count=results.advisory_count,
        channels={name: channel.status for name, channel in results.per_channel.items()},
    )
    meta = results.metadata
    for key in ("outside_diff_count", "unanchored_count", "ungated_count"):
        if getattr(meta, key):
            properties[key] = getattr(meta, key)
    if results.trust_mode is not None:
        properties["trust_mode"] = results.trust_mode
    if results.proposed_acks:
        properties["proposed_acks"] = list(results.proposed_acks)
    if results.proposed_config_change:
        properties["proposed_config_change"] = True
    if results.session_id is not None:
        properties["session_id"] = results.session_id
    if results.round is not None:
        properties["round"] = results.round
    return properties
