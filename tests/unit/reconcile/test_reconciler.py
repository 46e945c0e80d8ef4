"""Reconciliation against the reference's scenarios, plus mmr's rules (spec ch. 04 §3, §5.6)."""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any

import pytest

from mmr.models import Finding
from mmr.reconcile.reconciler import reconcile

SCENARIOS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parents[2] / "fixtures" / "reconcile-vectors.json").read_text("utf-8")
)["scenarios"]


def _f(location: str, description: str, severity: str = "P1", suggestion: str = "fix",
       **extra: str) -> Finding:
    return Finding.model_validate({"severity": severity, "location": location,
                                   "description": description, "suggestion": suggestion,
                                   **extra})


def _channels(raw: dict[str, list[dict[str, Any]]]) -> dict[str, list[Finding]]:
    return {name: [Finding.model_validate(f) for f in items] for name, items in raw.items()}


def test_fixture_holds_all_29_scenarios() -> None:
    assert len(SCENARIOS) == 29


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s["name"] for s in SCENARIOS])
def test_reference_scenarios_match_exactly(scenario: dict[str, Any]) -> None:
    result = reconcile(_channels(scenario["channel_findings"]))
    assert [r.to_json_dict() for r in result] == scenario["expected"]


def test_no_findings_give_no_groups() -> None:
    assert reconcile({}) == []
    assert reconcile({"claude": [], "codex": []}) == []


def test_same_key_at_different_lines_is_one_consensus_group() -> None:
    [group] = reconcile({"claude": [_f("a.ts:10", "bug A")], "codex": [_f("a.ts:99", "bug A")]})
    assert (group.agreement, group.confidence, group.sources) == (
        "consensus", "high", ["claude", "codex"])


def test_dot_slash_locations_group_even_from_one_channel() -> None:
    """Decisions: ./src/a.py:5 and src/a.py:5 are one finding, reported without ./."""
    [group] = reconcile({"claude": [_f("./src/a.py:5", "bug here"), _f("src/a.py:5", "bug here")]})
    assert group.location == "src/a.py:5"
    assert group.sources == ["claude"]


def test_single_source_confidence() -> None:
    result = reconcile({
        "claude": [_f("a.ts", "crash", "P0"), _f("b.ts", "typo", "P2")],
        "compensating-codex": [_f("c.ts", "leak", "P2"), _f("d.ts", "oops", "P0")],
    })
    by_location = {r.location: r.confidence for r in result}
    assert by_location == {"a.ts": "high", "b.ts": "medium", "c.ts": "low", "d.ts": "high"}


def test_representative_is_longest_description_in_utf16_units() -> None:
    common = "the session token is written to the debug log on every request "
    emoji, letters = common + "😀😀", common + "abc"  # 4 vs 3 UTF-16 units, 2 vs 3 code points
    [group] = reconcile({"a": [_f("x.ts:1", letters)], "b": [_f("x.ts:1", emoji)]})
    assert len(group.sources) == 2
    assert group.description == emoji


def test_padding_counts_towards_the_longest_description() -> None:
    [group] = reconcile({"a": [_f("x.ts:1", "Regression risk")],
                         "b": [_f("x.ts:1", "  REGRESSION   RISK  ")]})
    assert group.description == "  REGRESSION   RISK  "
    assert group.agreement == "consensus"


def test_ids_are_backfilled_by_output_position_with_growing_width() -> None:
    findings = [_f(f"f{i:04d}.ts", f"distinct problem number {i}") for i in range(1001)]
    result = reconcile({"claude": findings})
    ids = [r.display_id for r in result]
    assert ids[0] == "F-001"
    assert ids[998] == "F-999"
    assert ids[1000] == "F-1001"
    assert all(r.id is None for r in result)


def test_empty_model_id_is_backfilled_and_real_ids_are_kept() -> None:
    result = reconcile({"claude": [_f("a.ts", "one bug", "P0", id=""), _f("b.ts", "two", id="X")]})
    assert [r.to_json_dict()["id"] for r in result] == ["F-001", "X"]
    assert result[0].id is None and result[0].generated_id == "F-001"


# --- §5.6 independent reviewers ----------------------------------------------------------

def _claude_and_its_substitute(**identities: str) -> list[Any]:
    return reconcile(
        {"claude": [_f("a.ts:3", "token leaks into the log")],
         "compensating-codex": [_f("a.ts:3", "token leaks into the log")]},
        identities=identities or None,
    )


def test_without_identities_a_compensating_pass_corroborates_like_the_reference() -> None:
    [group] = _claude_and_its_substitute()
    assert (group.agreement, group.confidence) == ("consensus", "high")


def test_a_pass_by_the_same_model_adds_no_independence() -> None:
    [group] = _claude_and_its_substitute(**{"compensating-codex": "claude"})
    assert (group.agreement, group.confidence) == ("unique", "medium")
    assert group.sources == ["claude", "compensating-codex"]


def test_passes_by_one_compensator_count_as_one_low_confidence_reviewer() -> None:
    same = {"compensating-codex": "claude", "compensating-gemini": "claude"}
    [group] = reconcile(
        {"compensating-codex": [_f("a.ts", "shared bug", "P1")],
         "compensating-gemini": [_f("a.ts", "shared bug", "P2")]},
        identities=same,
    )
    assert (group.agreement, group.confidence, group.severity) == ("unique", "low", "P1")


def test_a_compensator_no_other_channel_used_is_a_second_opinion() -> None:
    [group] = reconcile(
        {"codex": [_f("a.ts", "shared bug")], "compensating-grok": [_f("a.ts", "shared bug")]},
        identities={"compensating-grok": "claude"},
    )
    assert (group.agreement, group.confidence) == ("consensus", "high")


def test_identities_do_not_change_grouping() -> None:
    channels = {"claude": [_f("a.ts:1", "bug"), _f("a.ts:2", "bug")],
                "compensating-codex": [_f("a.ts:2", "bug")]}
    plain = reconcile(channels)
    mapped = reconcile(channels, identities={"compensating-codex": "claude"})
    assert [(r.finding_key, r.location, r.sources) for r in plain] == [
        (r.finding_key, r.location, r.sources) for r in mapped]


# --- the collector pause ------------------------------------------------------------------

def _busy_channels() -> dict[str, list[Finding]]:
    text = "the session token is written to the debug log on every request"
    return {
        "claude": [_f(f"a.ts:{i}", f"{text} {i % 3}", suggestion=f"s{i % 2}") for i in range(30)],
        "codex": [_f(f"a.ts:{i}", f"{text} {i % 4}", suggestion="s0") for i in range(30)],
        "compensating-x": [_f("./a.ts:1", text, id="X-1", category="Security")],
    }


def test_reconcile_leaves_no_cyclic_garbage() -> None:
    """Why pausing the collector during reconciliation is safe: nothing it frees is cyclic."""
    gc.collect()
    result = reconcile(_busy_channels(), identities={"compensating-x": "claude"})
    assert gc.collect() == 0
    assert any(len(r.sources) > 1 for r in result)


@pytest.mark.parametrize("enabled", [True, False])
def test_reconcile_restores_the_collector_state(enabled: bool) -> None:
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        reconcile(_busy_channels())
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()
