"""Ack lookup, stamping and trust gating."""

from __future__ import annotations

import json
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from mmr.acks.apply import AckPolicy, ScopeIndex, apply_acks, lookup
from mmr.acks.record import AckRecord, AckScope
from mmr.acks.seen import read_last_seen
from mmr.acks.store import AckStore, ScopeContents
from mmr.models import ReconciledFinding
from mmr.store.records import ReviewControls

from .ack_helpers import ack_for, reconciled

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
WORKING_TREE = AckPolicy("working-tree")
TIMING = "Token compared with == allows a timing attack"
TIMING_REWORDED = "Token compared with == allows a timing attacks"


@pytest.fixture
def store(tmp_path: Path) -> AckStore:
    return AckStore(user_root=tmp_path / "mmr", project_root=tmp_path / "repo")


def _apply(findings: list[ReconciledFinding], store: AckStore,
           policy: AckPolicy = WORKING_TREE,
           warnings: list[str] | None = None) -> list[ReconciledFinding]:
    sink = warnings.append if warnings is not None else _no_warning
    return apply_acks(findings, store, policy, now=NOW, warn=sink)


def _no_warning(line: str) -> None:
    raise AssertionError(f"unexpected warning: {line}")


def _record(key: str, location: str, shingle: list[str], reason: str | None = None) -> AckRecord:
    return AckRecord(finding_key=key, normalized_location=location,
                     description_shingle=shingle, reason=reason,
                     created_at="2026-01-01T00:00:00.000Z")


# -- matching ----------------------------------------------------------------------------

def test_exact_match_stamps_and_leaves_everything_else(store: AckStore) -> None:
    finding = reconciled("src/auth.ts:12", TIMING, "use a constant-time compare")
    store.add(ack_for(finding, reason="accepted: internal only"), "project")
    [out] = _apply([finding], store)
    assert (out.acknowledged, out.ack_match, out.ack_reason) == (True, "exact",
                                                                 "accepted: internal only")
    same = {k: v for k, v in out.to_json_dict().items() if not k.startswith("ack")}
    assert same == finding.to_json_dict()


def test_no_reason_means_no_ack_reason_key(store: AckStore) -> None:
    finding = reconciled("a.py:1", "Unvalidated input reaches the shell")
    store.add(ack_for(finding), "user")
    [out] = _apply([finding], store)
    data = out.to_json_dict()
    assert data["acknowledged"] is True and data["ack_match"] == "exact"
    assert "ack_reason" not in data


def test_a_reworded_finding_is_still_acknowledged_fuzzily(store: AckStore) -> None:
    original = reconciled("src/auth.ts:88", TIMING, "use timingSafeEqual")
    store.add(ack_for(original, reason="known"), "project")
    later = reconciled("./src/auth.ts:90", TIMING_REWORDED, "compare digests instead")
    assert later.finding_key != original.finding_key
    [out] = _apply([later], store)
    assert (out.acknowledged, out.ack_match, out.ack_reason) == (True, "fuzzy", "known")


def test_the_spec_fuzzy_example_scores_41_of_42(store: AckStore) -> None:
    ack = ack_for(reconciled("src/auth.ts", TIMING))
    later = reconciled("src/auth.ts:90", TIMING_REWORDED, "different suggestion")
    match = lookup(ScopeIndex([ack]), ScopeIndex(), later.finding_key, "src/auth.ts",
                   later.description_shingle)
    assert match is not None and match.match == "fuzzy"
    assert match.similarity == 41 / 42


def test_fuzzy_needs_the_same_normalised_location(store: AckStore) -> None:
    store.add(ack_for(reconciled("src/auth.ts:1", TIMING)), "project")
    [out] = _apply([reconciled("src/other.ts:1", TIMING_REWORDED)], store)
    assert out.acknowledged is None and out.ack_match is None


def test_unrelated_text_at_the_same_location_is_not_acknowledged(store: AckStore) -> None:
    store.add(ack_for(reconciled("src/auth.ts:1", TIMING)), "project")
    [out] = _apply([reconciled("src/auth.ts:1", "SQL built by string concatenation")], store)
    assert out.acknowledged is None


def test_seven_tenths_exactly_passes_and_below_fails() -> None:
    grams = [f"g{i:04d}" for i in range(10)]
    index = ScopeIndex([_record("a" * 40, "x.py", grams, "hit")])
    at = lookup(index, ScopeIndex(), "f" * 40, "x.py", grams[:7])  # 7 / 10
    below = lookup(index, ScopeIndex(), "f" * 40, "x.py", grams[:6])  # 6 / 10
    assert at is not None and at.similarity == 0.7
    assert below is None


def test_empty_shingles_never_fuzzy_match() -> None:
    index = ScopeIndex([_record("a" * 40, "x.py", [])])
    assert lookup(index, ScopeIndex(), "f" * 40, "x.py", []) is None
    assert lookup(index, ScopeIndex(), "a" * 40, "x.py", []) is not None  # exact still works


def test_lookup_order_exact_project_user_then_fuzzy_project_user() -> None:
    grams = [f"g{i:04d}" for i in range(10)]
    key = "f" * 40
    p_exact = _record(key, "x.py", [], "project exact")
    u_exact = _record(key, "x.py", [], "user exact")
    p_fuzzy = _record("1" * 40, "x.py", grams[:8], "project fuzzy")  # J 0.8
    u_fuzzy = _record("2" * 40, "x.py", grams, "user fuzzy")  # J 1.0

    def reason(project: list[AckRecord], user: list[AckRecord]) -> str | None:
        found = lookup(ScopeIndex(project), ScopeIndex(user), key, "x.py", grams)
        return None if found is None else found.record.reason

    assert reason([p_exact, p_fuzzy], [u_exact, u_fuzzy]) == "project exact"
    assert reason([p_fuzzy], [u_exact, u_fuzzy]) == "user exact"  # exact user beats fuzzy
    assert reason([p_fuzzy], [u_fuzzy]) == "project fuzzy"  # project shadows at equal kind
    assert reason([], [u_fuzzy]) == "user fuzzy"


def test_the_best_fuzzy_candidate_wins_ties_to_the_smallest_key() -> None:
    grams = [f"g{i:04d}" for i in range(10)]
    weak = _record("0" * 40, "x.py", grams[:8], "weak")  # first in file order, J 0.8
    strong = _record("9" * 40, "x.py", grams[:9], "strong")  # J 0.9
    found = lookup(ScopeIndex([weak, strong]), ScopeIndex(), "f" * 40, "x.py", grams)
    assert found is not None and found.record.reason == "strong"
    twin_b = _record("b" * 40, "x.py", grams[:9], "b")
    twin_a = _record("a" * 40, "x.py", grams[:9], "a")
    found = lookup(ScopeIndex([twin_b, twin_a]), ScopeIndex(), "f" * 40, "x.py", grams)
    assert found is not None and found.record.reason == "a"


def test_unmatched_findings_lose_stale_stamps(store: AckStore) -> None:
    stale = reconciled("a.py:1", "Something unrelated entirely").model_copy(
        update={"acknowledged": True, "ack_match": "exact", "ack_reason": "old"})
    [out] = _apply([stale], store)
    assert (out.acknowledged, out.ack_match, out.ack_reason) == (None, None, None)


# -- trust gating --------------------------------------------------------------------------

def test_untrusted_policy_ignores_working_tree_project_acks(store: AckStore) -> None:
    project_only = reconciled("a.py:1", "Planted suppression of a real bug")
    user_only = reconciled("b.py:1", "Accepted by the operator personally")
    store.add(ack_for(project_only), "project")
    store.add(ack_for(user_only), "user")
    out = _apply([project_only, user_only], store, AckPolicy("none"))
    assert [f.acknowledged for f in out] == [None, True]
    out = _apply([project_only, user_only], store, AckPolicy("working-tree"))
    assert [f.acknowledged for f in out] == [True, True]


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def test_base_ref_mode_reads_only_committed_acks(store: AckStore) -> None:
    repo = store.project_root
    assert repo is not None
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    committed = reconciled("a.py:1", "Committed and ratified acknowledgment")
    fresh = reconciled("b.py:1", "Fresh working tree acknowledgment")
    store.add(ack_for(committed, reason="ratified"), "project")
    _git(repo, "add", ".mmr")
    _git(repo, "commit", "-q", "-m", "ack")
    store.add(ack_for(fresh), "project")
    # A committed file whose content names another key is ignored.
    bogus = repo / ".mmr" / "acks" / f"{'e' * 40}.json"
    bogus.write_text(json.dumps(ack_for(fresh).to_json_dict()))
    _git(repo, "add", str(bogus))
    _git(repo, "commit", "-q", "-m", "bogus")
    bogus.unlink()

    out = _apply([committed, fresh], store, AckPolicy("base-ref", "HEAD"))
    assert [(f.acknowledged, f.ack_reason) for f in out] == [(True, "ratified"), (None, None)]
    out = _apply([committed, fresh], store, AckPolicy("working-tree"))
    assert [f.acknowledged for f in out] == [True, True]
    for ref in ("evil:../x", "--output=/tmp/x", "does-not-exist"):
        out = _apply([committed], store, AckPolicy("base-ref", ref))
        assert out[0].acknowledged is None


def test_policy_from_review_controls() -> None:
    assert AckPolicy.from_review_controls(None) == AckPolicy("none")
    assert AckPolicy.from_review_controls({}) == AckPolicy("none")
    assert AckPolicy.from_review_controls(
        {"trust_project_acks": True, "config_base_ref": "main"}) == AckPolicy("working-tree")
    assert AckPolicy.from_review_controls(
        ReviewControls(max_rounds=5, config_base_ref="origin/main")
    ) == AckPolicy("base-ref", "origin/main")
    assert AckPolicy.from_review_controls({"accept_new_acks": False}) == AckPolicy("none")
    assert AckPolicy.from_review_controls({"config_base_ref": ""}) == AckPolicy("none")


# -- fail safe and sightings -----------------------------------------------------------------

def test_a_broken_project_scope_keeps_user_acks_and_warns(store: AckStore,
                                                          tmp_path: Path) -> None:
    finding = reconciled("a.py:1", "Operator accepted this one")
    store.add(ack_for(finding, reason="mine"), "user")
    (tmp_path / "outside").mkdir()
    store.project_root.mkdir()  # type: ignore[union-attr]
    (store.project_root / ".mmr").symlink_to(tmp_path / "outside")  # type: ignore[operator]
    warnings: list[str] = []
    [out] = _apply([finding], store, AckPolicy("working-tree"), warnings)
    assert (out.acknowledged, out.ack_reason) == (True, "mine")
    assert len(warnings) == 1
    assert warnings[0].startswith("[mmr] warning: project acks ignored: ack project directory "
                                  "escapes its root via a symlinked ancestor")


class _ExplodingStore(AckStore):
    def read_scope(self, scope: AckScope) -> ScopeContents:
        if scope == "project":
            raise RuntimeError("disk on fire")
        return super().read_scope(scope)


def test_any_failure_means_no_acks_at_all(tmp_path: Path) -> None:
    store = _ExplodingStore(user_root=tmp_path / "mmr", project_root=tmp_path / "repo")
    finding = reconciled("a.py:1", "Operator accepted this one").model_copy(
        update={"acknowledged": True, "ack_match": "exact"})
    store.add(ack_for(finding), "user")

    def broken_stderr(line: str) -> None:
        raise BrokenPipeError(line)

    [out] = apply_acks([finding], store, AckPolicy("working-tree"), now=NOW, warn=broken_stderr)
    assert (out.acknowledged, out.ack_match) == (None, None)
    assert read_last_seen(store.user_root) == {}


def test_applied_acks_are_recorded_as_seen_in_the_mmr_root(store: AckStore) -> None:
    exact = reconciled("a.py:1", "First accepted finding here")
    fuzzy_src = reconciled("src/auth.ts:1", TIMING)
    store.add(ack_for(exact), "user")
    store.add(ack_for(fuzzy_src), "project")
    _apply([exact, reconciled("src/auth.ts:9", TIMING_REWORDED)], store)
    assert read_last_seen(store.user_root) == {exact.finding_key: NOW,
                                               fuzzy_src.finding_key: NOW}
    project_files = sorted(p.name for p in (store.project_root / ".mmr" / "acks").iterdir())  # type: ignore[operator]
    assert project_files == [f"{fuzzy_src.finding_key}.json"]  # nothing written to the tree

