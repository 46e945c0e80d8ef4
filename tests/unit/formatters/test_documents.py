"""The round-budget and ratification-gate documents."""

from __future__ import annotations

from mmr.reconcile.documents import max_rounds_results, max_rounds_summary, ratification_results


def test_max_rounds_summary_names_session_round_and_cap():
    assert max_rounds_summary("s1", 6, 5) == (
        'max_rounds_exceeded: session="s1" round=6 > max_rounds=5'
    )
    assert max_rounds_summary(None, 7, 5) == (
        'max_rounds_exceeded: session="default" round=7 > max_rounds=5'
    )


def test_max_rounds_document_is_an_empty_needs_decision():
    doc = max_rounds_results(None, 7, 5, "P1").to_json_dict()
    assert doc["job_id"] == "session-default"
    assert doc["verdict"] == "needs-user-decision"
    assert doc["fix_threshold"] == "P1"
    assert (doc["advisory_count"], doc["approved"]) == (0, False)
    assert doc["reconciled_findings"] == [] and doc["per_channel"] == {}
    assert doc["metadata"] == {
        "channels_dispatched": 0, "channels_completed": 0, "channels_partial": 0,
        "total_elapsed": "0s",
    }


def test_gate_document_carries_only_the_proposals_that_apply():
    doc = ratification_results("s", "P2", "base-ref", proposed_config_change=True).to_json_dict()
    assert doc["proposed_config_change"] is True and "proposed_acks" not in doc
    doc = ratification_results("s", "P2", "base-ref", proposed_acks=[".mmr/acks/a"]).to_json_dict()
    assert doc["proposed_acks"] == [".mmr/acks/a"] and "proposed_config_change" not in doc
    assert doc["trust_mode"] == "base-ref" and doc["job_id"] is None
