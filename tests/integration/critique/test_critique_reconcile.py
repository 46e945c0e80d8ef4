"""Reply parsing and reconciliation into convergence and divergence."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mmr.critique.models import CritiqueItem
from mmr.critique.parser import PARSE_FAILURE, parse_critique_reply
from mmr.critique.reconcile import reconcile_items
from mmr.reconcile.stable_id import description_shingle, jaccard
from tests.fakes.plugin import FakeCliFactory
from tests.integration.critique.conftest import (
    RunMmr,
    critique_reply,
    item,
    write_user_config,
)

POLLING = "Polling every table once a minute will not scale past a few hundred tables."
POLLING_2 = "Polling every table once a minute will not scale past a few hundred tables!"
POLLING_3 = "Polling every table once a minute will not scale beyond several hundred tables."
SPOF = "A single cron host is a single point of failure for all nightly reports."
QUEUE = "Consider a work queue so reports are pushed instead of discovered by polling."


def _item(observation: str, kind: str = "concern", theme: str = "scale",
          recommendation: str | None = None) -> CritiqueItem:
    return CritiqueItem(kind=kind, theme=theme, observation=observation,  # type: ignore[arg-type]
                        recommendation=recommendation)


# --- parsing one reply --------------------------------------------------------------------

def test_items_are_dug_out_of_envelopes_and_prose() -> None:
    body = {"items": [item(POLLING)], "summary": "Risky."}
    claude = json.dumps({"type": "result", "is_error": False, "result": json.dumps(body)})
    grok = json.dumps({"text": "My view:\n" + json.dumps(body) + "\nThanks."})
    for raw in (claude, grok, critique_reply(item(POLLING), summary="Risky.")):
        parsed = parse_critique_reply(raw)
        assert [i.observation for i in parsed.items] == [POLLING]
        assert parsed.summary == "Risky."


def test_entries_are_normalised_leniently() -> None:
    raw = json.dumps({"items": [
        {"kind": "blocker", "theme": "  ", "observation": "  Unknown kind and no theme.  ",
         "recommendation": "   "},
        {"kind": "ALTERNATIVE", "observation": "Use a queue.", "recommendation": " Try SQS. "},
        {"kind": "concern", "theme": "x"},
        {"kind": "concern", "observation": ""},
        {"kind": "concern", "observation": 42},
        "not an object",
    ], "summary": "  fine  "})
    parsed = parse_critique_reply(raw)
    assert [i.model_dump(exclude_none=True) for i in parsed.items] == [
        {"kind": "consideration", "theme": "general", "observation": "Unknown kind and no theme."},
        {"kind": "alternative", "theme": "general", "observation": "Use a queue.",
         "recommendation": "Try SQS."},
    ]
    assert parsed.summary == "fine"


@pytest.mark.parametrize("raw", [None, "", "The design looks fine to me.", '{"items": []}',
                                 '{"items": [{"kind": "concern"}]}', "[1, 2]"])
def test_nothing_usable_gets_the_failure_summary(raw: str | None) -> None:
    parsed = parse_critique_reply(raw)
    assert parsed.items == ()
    assert parsed.summary == PARSE_FAILURE


def test_a_summary_without_items_is_kept() -> None:
    parsed = parse_critique_reply('{"items": [], "summary": "Sound design; nothing to add."}')
    assert parsed.items == () and parsed.summary == "Sound design; nothing to add."


# --- reconciliation -----------------------------------------------------------------------

def test_the_same_point_from_two_channels_is_consensus() -> None:
    items = reconcile_items({"cb": [_item(POLLING_2)], "ca": [_item(POLLING, recommendation="Use "
                                                                     "change data capture.")]})
    assert len(items) == 1
    merged = items[0]
    assert merged.id == "C-001"
    assert merged.sources == ["ca", "cb"]
    assert merged.agreement == "consensus"
    assert merged.observation == POLLING_2  # the longest observation represents the group
    assert merged.recommendation == "Use change data capture."
    assert merged.observation_shingle == description_shingle(POLLING_2)


def test_mixed_kinds_are_majority_with_the_most_frequent_kind() -> None:
    items = reconcile_items({"ca": [_item(POLLING, "concern")],
                             "cb": [_item(POLLING_2, "consideration")],
                             "cc": [_item(POLLING_3, "consideration")]})
    assert jaccard(frozenset(description_shingle(POLLING)),
                   frozenset(description_shingle(POLLING_3))) >= 0.4
    assert [(i.agreement, i.kind, i.sources) for i in items] == [
        ("majority", "consideration", ["ca", "cb", "cc"])]


def test_a_tied_kind_count_prefers_concern_then_alternative() -> None:
    items = reconcile_items({"ca": [_item(POLLING, "open-question")],
                             "cb": [_item(POLLING_2, "alternative")]})
    assert items[0].kind == "alternative" and items[0].agreement == "majority"


def test_one_channel_repeating_itself_is_unique() -> None:
    items = reconcile_items({"ca": [_item(POLLING), _item(POLLING_2)]})
    assert [(i.agreement, i.sources) for i in items] == [("unique", ["ca"])]


def test_dissimilar_points_stay_apart() -> None:
    assert jaccard(frozenset(description_shingle(POLLING)),
                   frozenset(description_shingle(SPOF))) < 0.4
    items = reconcile_items({"ca": [_item(POLLING)], "cb": [_item(SPOF, theme="availability")]})
    assert [(i.agreement, i.sources) for i in items] == [("unique", ["cb"]), ("unique", ["ca"])]
    assert [i.theme for i in items] == ["availability", "scale"]


def test_observations_too_short_to_shingle_never_cluster() -> None:
    items = reconcile_items({"ca": [_item("Ok.")], "cb": [_item("Ok.")]})
    assert [(i.agreement, i.sources, i.observation_shingle) for i in items] == [
        ("unique", ["ca"], []), ("unique", ["cb"], [])]


def test_ids_follow_agreement_kind_theme_then_observation() -> None:
    items = reconcile_items({
        "ca": [_item(POLLING), _item(QUEUE, "alternative", "design"), _item(SPOF, theme="ops"),
               _item("Who owns the reports when the cron host is down?", "open-question", "ops")],
        "cb": [_item(POLLING_2)],
        "cc": [_item(POLLING_3, "consideration"), _item("Data retention is never discussed "
                                                        "anywhere in the plan.", theme="data")],
    })
    assert [(i.id, i.agreement, i.kind, i.theme) for i in items] == [
        ("C-001", "majority", "concern", "scale"),
        ("C-002", "unique", "concern", "data"),
        ("C-003", "unique", "concern", "ops"),
        ("C-004", "unique", "alternative", "design"),
        ("C-005", "unique", "open-question", "ops"),
    ]


def test_reconciliation_does_not_depend_on_channel_order() -> None:
    replies = {"ca": [_item(POLLING), _item(SPOF)], "cb": [_item(POLLING_2), _item(QUEUE)]}
    forward = reconcile_items(replies)
    backward = reconcile_items(dict(reversed(list(replies.items()))))
    assert forward == backward


# --- end to end -----------------------------------------------------------------------------

def test_convergence_and_single_model_items_in_both_formats(
        tmp_path: Path, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    (tmp_path / "design.md").write_text("Poll every table each minute from one cron host.\n")
    fake_cli("ca", stdout=critique_reply(
        item(POLLING, recommendation="Use change data capture."),
        item(SPOF, theme="availability")))
    fake_cli("cb", stdout=critique_reply(item(POLLING_2)))
    fake_cli("cc", stdout=critique_reply(item(QUEUE, "alternative", "design")))
    write_user_config({name: {"command": name} for name in ("ca", "cb", "cc")})

    report = run_mmr("critique", "design.md", "--format", "json", cwd=tmp_path).json()
    assert [(i["id"], i["agreement"], i["sources"]) for i in report["items"]] == [
        ("C-001", "consensus", ["ca", "cb"]), ("C-002", "unique", ["ca"]),
        ("C-003", "unique", ["cc"])]
    assert list(report["items"][0]) == ["kind", "theme", "observation", "recommendation", "id",
                                        "sources", "agreement", "observation_shingle"]
    assert report["summary"] == "3 item(s) across 3 of 3 channel(s) — 1 consensus, 2 single-model"
    assert report["per_channel"]["ca"] == {"status": "completed", "item_count": 2,
                                           "summary": "Reviewed the plan."}

    text = run_mmr("critique", "design.md", cwd=tmp_path).out
    assert text.startswith("CRITIQUE · design.md · 3 channels · advisory (no gate)\n\n")
    assert ("CONVERGENCE — independent models agreed (high signal)\n"
            f"  • [concern · consensus] scale — {POLLING_2}\n"
            "      ↳ Use change data capture.\n"
            "      sources: ca, cb\n\n"
            f"CONCERNS\n  • availability — {SPOF}\n      sources: ca\n\n"
            f"ALTERNATIVES\n  • design — {QUEUE}\n      sources: cc\n\n"
            "CHANNELS\n  ca: 2 item(s)\n  cb: 1 item(s)\n  cc: 1 item(s)\n\n"
            "SYNTHESIS\n  3 item(s) across 3 of 3 channel(s) — 1 consensus, 2 single-model\n"
            ) in text + "\n"


@pytest.mark.parametrize(("other", "joins"), [
    ("Polling every table once a minute will break at scale.", True),             # 0.469
    ("Polling every table each minute does not scale past hundreds of tables.", False),  # 0.396
])
def test_the_similarity_threshold_is_0_4(other: str, joins: bool) -> None:
    score = jaccard(frozenset(description_shingle(POLLING)), frozenset(description_shingle(other)))
    assert (score >= 0.4) is joins
    items = reconcile_items({"ca": [_item(POLLING)], "cb": [_item(other)]})
    assert len(items) == (1 if joins else 2)
