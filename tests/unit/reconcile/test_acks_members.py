"""An ack covers a calibrated group through any of its members' keys, so it keeps working
when the group's representative (whose key the group carries) changes between runs."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from mmr.acks.apply import AckPolicy, apply_acks
from mmr.acks.record import AckRecord, new_ack_record
from mmr.acks.store import AckStore
from mmr.models import Finding, ReconciledFinding
from mmr.reconcile.reconciler import reconcile

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
CLAUDE = ("Race condition: two concurrent requests can both pass the device count check "
          "and exceed the configured device limit")
CODEX = "Two concurrent requests may both pass the device limit check"
GEMINI = "The device limit check is not atomic, concurrent logins exceed it"


def _run(**descriptions: tuple[str, str]) -> ReconciledFinding:
    [group] = reconcile({channel: [Finding(severity="P1", location=location,
                                           description=description, suggestion="")]
                         for channel, (location, description) in descriptions.items()})
    return group


def _ack(finding: ReconciledFinding) -> AckRecord:
    """What ``mmr ack add`` writes for ``finding`` as the job stored it."""
    return new_ack_record(finding.finding_key, finding.location, finding.description_shingle,
                          now=NOW, member_keys=[m.finding_key for m in finding.members or ()])


def _acknowledged(finding: ReconciledFinding, record: AckRecord, tmp_path: Path) -> bool:
    store = AckStore(user_root=tmp_path / "mmr", project_root=tmp_path / "repo")
    store.add(record, "user")
    [stamped] = apply_acks([finding], store, AckPolicy("working-tree"), now=NOW,
                           warn=lambda line: None)
    return bool(stamped.acknowledged) and stamped.ack_match == "exact"


def test_an_ack_on_the_group_survives_its_founders_reviewer_missing(tmp_path: Path) -> None:
    first = _run(claude=("src/auth.py:40", CLAUDE), codex=("src/auth.py:44", CODEX),
                 gemini=("src/auth.py:38", GEMINI))
    assert first.sources == ["claude", "codex", "gemini"]
    assert first.finding_key == first.members[0].finding_key  # type: ignore[index]
    record = _ack(first)
    assert set(record.to_json_dict()["member_keys"]) == {
        m.finding_key for m in first.members or () if m.channel != "claude"}
    second = _run(codex=("src/auth.py:44", CODEX), gemini=("src/auth.py:38", GEMINI))
    assert second.finding_key != first.finding_key  # claude's was the representative
    assert _acknowledged(second, record, tmp_path)


def test_an_ack_on_a_single_finding_covers_the_group_it_later_joins(tmp_path: Path) -> None:
    alone = _run(codex=("src/auth.py:44", CODEX))
    record = _ack(alone)
    assert "member_keys" not in record.to_json_dict()  # as MMR 4.0.1 writes it
    joined = _run(claude=("src/auth.py:40", CLAUDE), codex=("src/auth.py:44", CODEX))
    assert joined.finding_key != alone.finding_key  # claude's longer wording represents it
    assert _acknowledged(joined, record, tmp_path)


def test_an_ack_on_another_defect_does_not_cover_the_group(tmp_path: Path) -> None:
    other = _run(codex=("src/auth.py:44", "Typo in the log message: recieved"))
    group = _run(claude=("src/auth.py:40", CLAUDE), gemini=("src/auth.py:38", GEMINI))
    assert not _acknowledged(group, _ack(other), tmp_path)


def test_member_keys_that_are_not_keys_are_ignored() -> None:
    record = AckRecord.model_validate({
        "finding_key": "a" * 40, "normalized_location": "x.py", "description_shingle": [],
        "created_at": "2026-01-01T00:00:00Z", "member_keys": ["b" * 40, "nope", 3]})
    assert record.member_keys == ("b" * 40,)
