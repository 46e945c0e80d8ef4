"""``--format sarif``: a SARIF 2.1.0 log GitHub code scanning accepts."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from mmr.formatters import render
from mmr.formatters.sarif import FINGERPRINT_KEY, sarif_log
from tests.sarif_schema import sarif_errors

from .ci_samples import CI_SAMPLES
from .samples import SAMPLES, blocked_example, degraded_everything, gate_document

GOLDEN = Path(__file__).parent / "golden"
ALL_SAMPLES = {**SAMPLES, **CI_SAMPLES}


@pytest.mark.parametrize("stem", sorted(CI_SAMPLES))
def test_ci_samples_match_golden(stem):
    expected = (GOLDEN / f"{stem}.sarif.json").read_bytes().decode("utf-8")
    assert render(CI_SAMPLES[stem](), "sarif") + "\n" == expected


def test_code_scanning_needs_a_location_on_every_result():
    # GitHub rejects the whole upload ("expected at least one location") otherwise.
    for make in ALL_SAMPLES.values():
        for result in sarif_log(make())["runs"][0]["results"]:
            [location] = result["locations"]
            assert location["physicalLocation"]["artifactLocation"]["uri"]


def test_one_run_with_the_mmr_driver(pinned_version):
    log = sarif_log(blocked_example())
    assert log["version"] == "2.1.0"
    assert log["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"
    [run] = log["runs"]
    assert run["tool"]["driver"]["name"] == "mmr"
    assert run["tool"]["driver"]["version"] == pinned_version


def test_rules_are_categories_and_levels_are_severities():
    run = sarif_log(blocked_example())["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == ["mmr/security", "mmr/general"]
    got = [(r["ruleId"], r["ruleIndex"], r["level"]) for r in run["results"]]
    # The P2 finding is acknowledged: level "none" (its severity stays in properties).
    assert got == [("mmr/security", 0, "error"), ("mmr/general", 1, "none"),
                   ("mmr/general", 1, "note")]
    assert run["results"][1]["properties"]["severity"] == "P2"
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]


@pytest.mark.parametrize(("severity", "level"),
                         [("P0", "error"), ("P1", "error"), ("P2", "warning"), ("P3", "note")])
def test_level_comes_from_severity_whatever_the_threshold(severity, level):
    results = blocked_example()
    finding = results.reconciled_findings[0].model_copy(update={"severity": severity})
    for threshold in ("P0", "P3"):
        doc = results.model_copy(update={"reconciled_findings": [finding],
                                         "fix_threshold": threshold})
        assert sarif_log(doc)["runs"][0]["results"][0]["level"] == level


def test_a_severity_change_keeps_rule_and_fingerprint():
    # finding_key leaves severity out; the rule id must too, or code scanning would close
    # the alert and open a new one whenever reviewers disagree on severity.
    results = blocked_example()
    original = results.reconciled_findings[0]
    raised = original.model_copy(update={"severity": "P0"})
    before = sarif_log(results.model_copy(update={"reconciled_findings": [original]}))
    after = sarif_log(results.model_copy(update={"reconciled_findings": [raised]}))
    pick = lambda log: (log["runs"][0]["results"][0]["ruleId"],  # noqa: E731
                        log["runs"][0]["results"][0]["partialFingerprints"])
    assert pick(before) == pick(after)


def test_message_location_fingerprint_and_properties():
    result = sarif_log(blocked_example())["runs"][0]["results"][0]
    assert result["message"]["text"] == (
        "SQL built by concatenation\n\nSuggestion: Use bind parameters\n\n"
        "Sources: claude, codex (consensus, high confidence)"
    )
    assert result["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "src/db.ts", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 42},
    }
    assert result["partialFingerprints"] == {
        FINGERPRINT_KEY: "c1fdc26dbda72d9684e972b8e76791260c062ca9"}
    assert result["properties"] == {
        "id": "F-001", "severity": "P1", "confidence": "high", "agreement": "consensus",
        "sources": ["claude", "codex"],
        "finding_key": "c1fdc26dbda72d9684e972b8e76791260c062ca9",
        "location": "src/db.ts:42", "category": "security",
    }
    assert "suppressions" not in result


def test_acknowledged_findings_are_suppressed():
    results = sarif_log(degraded_everything())["runs"][0]["results"]
    assert results[0]["suppressions"] == [{"kind": "external", "status": "accepted"}]
    assert "suppressions" not in results[1]
    assert results[2]["suppressions"] == [
        {"kind": "external", "status": "accepted", "justification": "style is deliberate"}]
    assert results[0]["properties"]["reported_confidence"] == "suspected"


def test_locations_are_percent_encoded_and_spans_become_regions():
    results = sarif_log(CI_SAMPLES["ci-locations"]())["runs"][0]["results"]
    physical = [r["locations"][0]["physicalLocation"] for r in results]
    assert physical[0]["region"] == {"startLine": 10, "endLine": 14}
    assert physical[1] == {"artifactLocation": {"uri": "lib/a%2Cb", "uriBaseId": "%SRCROOT%"},
                           "region": {"startLine": 7, "startColumn": 3}}
    assert physical[2]["artifactLocation"]["uri"] == "docs/Read%20Me.md"
    assert physical[4] == {"artifactLocation": {"uri": ".", "uriBaseId": "%SRCROOT%"},
                           "region": {"startLine": 1}}  # code scanning wants a region
    assert results[4]["properties"]["location"] == "unknown"
    # Issue 15: a path outside the repository is a repository-level result.
    assert physical[6] == {"artifactLocation": {"uri": ".", "uriBaseId": "%SRCROOT%"},
                           "region": {"startLine": 1}}
    assert physical[7]["region"] == {"startLine": 1}  # line 0 is no line: the file as a whole


def test_gate_document_has_no_results_and_carries_the_verdict():
    run = sarif_log(gate_document())["runs"][0]
    assert run["results"] == []
    assert run["properties"] == {
        "verdict": "needs-user-decision", "summary": gate_document().summary,
        "fix_threshold": "P2", "advisory_count": 0, "channels": {},
        "trust_mode": "base-ref", "proposed_acks": [".mmr/acks/x.json"],
        "proposed_config_change": True,
    }


def test_run_properties_name_every_channel_status():
    props = sarif_log(degraded_everything())["runs"][0]["properties"]
    assert props["job_id"] == "mmr-0123456789ab"
    assert props["channels"]["codex"] == "not_installed"
    assert (props["session_id"], props["round"]) == ("s1", 2)


def test_non_ascii_is_written_raw():
    text = render(degraded_everything(), "sarif")
    assert "«ünïcode» —" in text


@pytest.mark.parametrize(
    ("mutate", "problem"),
    [
        (lambda log: log["runs"][0]["results"][0].pop("message"), "is a required property"),
        (lambda log: log["runs"][0]["results"][0].update(level="fatal"), "is not one of"),
        (lambda log: log["runs"][0]["results"][0].update(severity="P1"), "not allowed"),
        (lambda log: log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
         ["region"].update(startLine=0), "less than the minimum"),
        (lambda log: log.update(version="2.0.0"), "is not one of"),
        (lambda log: log["runs"][0]["tool"]["driver"].pop("name"), "is a required property"),
        (lambda log: log["runs"][0]["results"][0].update(ruleIndex=True), "is not of type"),
    ],
)
def test_the_official_schema_catches_invalid_logs(mutate, problem):
    log = copy.deepcopy(sarif_log(blocked_example()))
    mutate(log)
    errors = sarif_errors(log)
    assert errors
    assert any(problem in error for error in errors), errors
