"""The results pipeline on jobs written directly to a store."""

from __future__ import annotations

import contextlib
import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mmr.config.paths import mmr_home
from mmr.errors import StoreReadError
from mmr.models import ReconciledFinding
from mmr.review.channel_results import cut_log
from mmr.review.results import job_results, save_results, total_elapsed
from mmr.store.jobs import JobStore

DIFF = "diff --git a/src/a.py b/src/a.py\n--- a/src/a.py\n+++ b/src/a.py\n@@ -1 +1 @@\n-x\n+y\n"
T0 = "2026-05-01T10:00:00.000Z"


def no_acks(findings: list[ReconciledFinding]) -> list[ReconciledFinding]:
    return findings


def review(*findings: dict[str, Any]) -> str:
    return json.dumps({"approved": not findings, "findings": list(findings), "summary": "s"})


def p1(location: str = "src/a.py:1", description: str = "Wrong value") -> dict[str, Any]:
    return {"severity": "P1", "location": location, "description": description,
            "suggestion": "Fix it"}


@pytest.fixture
def store(tmp_path: Path) -> JobStore:
    return JobStore(tmp_path / "jobs")


def make_job(store: JobStore, channels: dict[str, dict[str, Any]], *,
             floor: int = 1, diff: str | None = DIFF, **job: Any) -> str:
    record = store.create_job(list(channels), fix_threshold="P2", format="json",
                              min_completed_channels=floor, **job)
    for name, given in channels.items():
        entry = dict(given)
        output = entry.pop("output", None)
        log = entry.pop("log", None)
        if entry:
            store.update_channel(record.job_id, name, **entry)
        if output is not None:
            store.write_channel_output(record.job_id, name, output)
        if log is not None:
            store.write_log(record.job_id, name, log)
    if diff is not None:
        store.write_diff(record.job_id, diff)
    return record.job_id


def done(ms_after: int, output: str | None = None, **extra: Any) -> dict[str, Any]:
    seconds, millis = divmod(ms_after, 1000)
    end = f"2026-05-01T10:00:{seconds:02d}.{millis:03d}Z"
    entry: dict[str, Any] = {"status": "completed", "started_at": T0, "completed_at": end}
    if output is not None:
        entry["output"] = output
    return {**entry, **extra}


def test_elapsed_rounds_half_up_like_javascript(store: JobStore) -> None:
    job = make_job(store, {"a": done(41_250, review()), "b": done(250, review()),
                           "c": done(150, review())})
    results = job_results(store, job, apply_acks=no_acks)
    assert [r.elapsed for r in results.per_channel.values()] == ["41.3s", "0.3s", "0.1s"]
    assert results.metadata.total_elapsed == "41.3s"


def test_error_strings_of_channels_that_did_not_complete(store: JobStore) -> None:
    job = make_job(store, {
        "ok": done(1000, review()),
        "crashed": {"status": "failed", "log": "  segfault \n"},
        "slow": {"status": "timeout", "started_at": T0,
                 "completed_at": "2026-05-01T10:05:00.000Z"},
        "locked": {"status": "auth_failed", "auth": "failed",
                   "recovery": "export OPENAI_API_KEY=sk-1"},
        "absent": {"status": "not_installed", "auth": "failed", "recovery": "x not found on PATH"},
        "off": {"status": "skipped", "auth": "skipped"},
        "big": {"status": "skipped", "auth": "skipped", "reason": "diff_too_large",
                "log": "diff too large: 9 lines > 3"},
        "prose": {"status": "failed", "reason": "parse_error",
                  "log": "Failed to parse channel output: no JSON object", "output": "hello"},
    })
    per_channel = job_results(store, job, apply_acks=no_acks, include_raw=True).per_channel
    assert per_channel["crashed"].error == "Channel failed: segfault"
    assert per_channel["slow"].error == "Channel timed out"
    assert per_channel["slow"].elapsed == "300.0s"  # the configured timeout, not the time waited
    assert per_channel["locked"].error == "Auth check failed"
    assert per_channel["locked"].recovery == "<redacted>"
    assert per_channel["absent"].error == "CLI not found on PATH"
    assert per_channel["off"].error is None
    assert per_channel["big"].error == "Channel skipped: diff too large: 9 lines > 3"
    assert per_channel["big"].reason == "diff_too_large"
    prose = per_channel["prose"]
    assert (prose.error, prose.raw_output) == (
        "Failed to parse channel output: no JSON object", "hello")


def test_log_is_cut_at_1000_characters() -> None:
    assert cut_log("x" * 1000) == "x" * 1000
    assert cut_log(" " + "y" * 1001) == "y" * 1000 + "…"


def test_completed_reply_that_does_not_parse_is_downgraded(store: JobStore) -> None:
    job = make_job(store, {"a": done(1000, "not json at all"), "b": done(1000, None)})
    per_channel = job_results(store, job, apply_acks=no_acks).per_channel
    assert per_channel["a"].status == "failed"
    assert per_channel["a"].error is not None
    assert per_channel["a"].error.startswith("Failed to parse channel output: ")
    assert (per_channel["b"].status, per_channel["b"].error) == (
        "failed", "Failed to load or parse channel output")


def test_findings_are_filtered_to_the_diff_and_reconciled(store: JobStore) -> None:
    job = make_job(store, {
        "a": done(1000, review(p1(), p1("other.py:3"))),
        "b": done(2000, review(p1("./src/a.py:1"))),
    }, floor=2)
    results = job_results(store, job, apply_acks=no_acks)
    assert [f.location for f in results.per_channel["a"].findings] == ["src/a.py:1"]
    [merged] = results.reconciled_findings
    assert merged.sources == ["a", "b"]
    assert (results.verdict, results.metadata.channels_completed) == ("blocked", 2)


def test_compensating_passes_count_as_their_compensator(store: JobStore) -> None:
    job = make_job(store, {"claude": done(1000, review()), "codex": {"status": "failed"}},
                   floor=2)
    store.register_compensating_pass(job, "codex", compensator="claude",
                                     output_parser="default")
    store.update_channel(job, "compensating-codex", **{
        k: v for k, v in done(1500).items() if k != "output"})
    store.write_channel_output(job, "compensating-codex", review())
    results = job_results(store, job, apply_acks=no_acks)
    assert results.metadata.channels_completed == 2
    assert results.metadata.channels_independent == 1
    assert results.verdict == "needs-user-decision"
    assert "independent reviewers" in results.summary


def test_acks_that_fail_mean_no_acks(store: JobStore) -> None:
    job = make_job(store, {"a": done(1000, review(p1()))})

    def broken(findings: list[ReconciledFinding]) -> list[ReconciledFinding]:
        findings[0].acknowledged = True
        raise RuntimeError("ack store unreadable")

    results = job_results(store, job, apply_acks=broken)
    assert results.reconciled_findings[0].acknowledged is None
    assert results.verdict == "blocked"


def test_the_jobs_own_acks_are_applied_by_default(store: JobStore, tmp_path: Path) -> None:
    job = make_job(store, {"a": done(1000, review(p1()))})
    key = job_results(store, job, apply_acks=no_acks).reconciled_findings[0].finding_key
    acks = mmr_home() / "acks"
    acks.mkdir(parents=True)
    (acks / f"{key}.json").write_text(json.dumps({
        "finding_key": key, "normalized_location": "src/a.py:1", "description_shingle": [],
        "created_at": T0, "reason": "accepted risk"}))
    results = job_results(store, job)
    assert results.reconciled_findings[0].acknowledged is True
    assert results.reconciled_findings[0].ack_reason == "accepted risk"
    assert results.verdict == "pass"


def test_injected_channels_do_not_stretch_total_elapsed(store: JobStore) -> None:
    job = make_job(store, {"a": done(2000, review()),
                           "ext": {**done(0, review()), "started_at": "2026-06-01T00:00:00.000Z",
                                   "completed_at": "2026-06-01T00:00:00.000Z",
                                   "injected": True}})
    assert total_elapsed(store.load(job)) == "2.0s"


def test_results_json_holds_the_json_form(store: JobStore) -> None:
    job = make_job(store, {"a": done(1000, review())}, trust_mode="non-git")
    results = job_results(store, job, apply_acks=no_acks)
    save_results(store, results)
    saved = json.loads((store.root / job / "results.json").read_text())
    assert saved["trust_mode"] == "non-git"
    assert saved["verdict"] == "pass"


@contextlib.contextmanager
def _no_hang() -> Iterator[None]:
    """Fail instead of hanging when a read blocks on a FIFO (the bug this guards)."""
    def fail(signum: int, frame: object) -> None:
        raise AssertionError("blocked on a FIFO")

    previous = signal.signal(signal.SIGALRM, fail)
    signal.alarm(20)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_a_fifo_in_place_of_results_json_is_replaced(store: JobStore) -> None:
    job = make_job(store, {"a": done(1000, review(p1()))})
    results = store.paths(job).results
    os.mkfifo(results)
    with _no_hang():
        store.write_results_text(job, '{"verdict": "blocked"}\n')
    assert results.is_file() and results.read_text() == '{"verdict": "blocked"}\n'


def test_a_fifo_in_place_of_a_channel_log_is_a_read_error_not_a_hang(store: JobStore) -> None:
    job = make_job(store, {"a": {"status": "failed", "log": "crashed"}})
    log = store.paths(job).channels_dir / "a.log"
    log.unlink()
    os.mkfifo(log)
    with _no_hang(), pytest.raises(StoreReadError) as raised:
        job_results(store, job, apply_acks=no_acks)
    assert str(raised.value).startswith(f"cannot read {log}: not a regular file.")
    assert "remove that path" in str(raised.value)
