"""``results-memo.json``: the pre-acks stage loaded back only when recomputing would give
the same (issue 19). Every "hit" below runs with the stage's computation counted, so a
memo that is not actually used, or used when it must not be, fails."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import mmr
from mmr.formatters.text import render_text
from mmr.models import Finding, ReconciledFinding
from mmr.review import stage_memo
from mmr.review.results import job_results, results_json, save_secret_findings
from mmr.store.jobs import JobStore
from tests.integration.git_repo_builder import GitRepo
from tests.integration.review.test_results_pipeline import DIFF, done, make_job, no_acks, p1, review

Rendered = tuple[str, str]


@pytest.fixture
def store(tmp_path: Path) -> JobStore:
    return JobStore(tmp_path / "jobs")


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    lines = "".join(f"line {n}\n" for n in range(1, 21))
    return GitRepo.create(tmp_path / "repo", {"src/a.py": "x\n", "lib/old.py": lines})


def rendered(store: JobStore, job: str, **kwargs: Any) -> Rendered:
    results = job_results(store, job, apply_acks=kwargs.pop("apply_acks", no_acks), **kwargs)
    return results_json(results), render_text(results)


def cold(store: JobStore, job: str, **kwargs: Any) -> Rendered:
    store.paths(job).results_memo.unlink(missing_ok=True)
    return rendered(store, job, **kwargs)


def assert_hit_is_cold(store: JobStore, job: str, computes: list[str],
                       **kwargs: Any) -> Rendered:
    first = cold(store, job, **kwargs)
    assert store.paths(job).results_memo.is_file()
    count = len(computes)
    hit = rendered(store, job, **kwargs)
    assert len(computes) == count, "the memo was not used"
    assert hit == first
    return hit


def reply_with(*findings: dict[str, Any]) -> str:
    return review(*findings)


# -- a hit is byte for byte a cold compute ------------------------------------------------


def test_the_bench_job(tmp_path: Path, computes: list[str]) -> None:
    from benchmarks.bench_reconcile_cmd import build_job

    job, _ = build_job(tmp_path, 7, 2_000, 4)
    store = JobStore(tmp_path / "jobs")
    document = json.loads(assert_hit_is_cold(store, job, computes)[0])
    assert len(document["reconciled_findings"]) > 500


def test_failed_timeout_and_unparseable_channels_with_raw(store: JobStore,
                                                         computes: list[str]) -> None:
    job = make_job(store, {
        "ok": done(1000, review(p1(), p1(description="token sk-ant-api03-" + "a" * 90)),
                   telemetry={"input_tokens": 1234, "cost_usd": 0.0123, "turns": 2.0},
                   attempts=2, cached=True, cached_from="mmr-0123456789ab"),
        "many": done(1000, review(*(p1(f"src/a.py:{n % 2 + 1}", f"Issue {n}")
                                    for n in range(520)))),
        "crashed": {"status": "failed", "log": "  segfault \n"},
        "slow": {"status": "timeout", "started_at": "2026-05-01T10:00:00.000Z",
                 "completed_at": "2026-05-01T10:05:00.000Z"},
        "locked": {"status": "auth_failed", "auth": "failed",
                   "recovery": "export OPENAI_API_KEY=sk-1"},
        "prose": {"status": "failed", "reason": "parse_error",
                  "log": "Failed to parse channel output: no JSON object", "output": "hello"},
        "garbled": done(1000, "not json at all"),
        "empty": done(1000, None),
    })
    for include_raw in (False, True):
        hit = json.loads(assert_hit_is_cold(store, job, computes, include_raw=include_raw)[0])
        assert hit["per_channel"]["ok"]["telemetry"]["turns"] == 2.0
        assert "note" in hit["per_channel"]["many"]


def test_secret_findings_injected_and_compensating_channels(store: JobStore,
                                                            computes: list[str]) -> None:
    job = make_job(store, {
        "claude": done(1000, review(p1(description="Off by one"))),
        "codex": {"status": "failed"},
        "ext": {**done(0), "injected": True},
    }, floor=2)
    store.write_channel_output_object(job, "ext", {
        "approved": False, "findings": [p1(description="Off by one error")], "summary": ""})
    store.register_compensating_pass(job, "codex", compensator="claude",
                                     output_parser="default")
    store.update_channel(job, "compensating-codex", **done(1500))
    store.write_channel_output(job, "compensating-codex", review(p1("src/a.py:1", "Off by 1")))
    save_secret_findings(store, job, [Finding(severity="P0", location="src/a.py:1",
                                              description="Committed credential (aws key)")])
    hit = json.loads(assert_hit_is_cold(store, job, computes)[0])
    assert "mmr-secrets" in {s for f in hit["reconciled_findings"] for s in f["sources"]}
    assert hit["metadata"]["compensating_passes"] == 1


def test_undecodable_reply_bytes(store: JobStore, computes: list[str]) -> None:
    job = make_job(store, {"a": done(1000, review(p1(description="bad \udc80 byte \u00e9")))})
    document = json.loads(assert_hit_is_cold(store, job, computes)[0])
    assert document["reconciled_findings"][0]["description"] == "bad \udc80 byte \u00e9"
    assert b"\\udc80" in store.paths(job).results_memo.read_bytes()  # the escaped form


def test_the_memo_is_private(store: JobStore, computes: list[str]) -> None:
    job = make_job(store, {"a": done(1000, review(p1()))})
    rendered(store, job)
    assert store.paths(job).results_memo.stat().st_mode & 0o777 == 0o600


def test_outside_and_unanchored_findings_keep_their_ids(store: JobStore, repo: GitRepo,
                                                        computes: list[str]) -> None:
    job = make_job(store, {
        "a": done(1000, review(p1(), p1("lib/old.py:3"), p1("lib/old.py:99"), p1("nowhere"),
                               p1(f"{repo.root}/lib/old.py:4", "Other"))),
        "b": done(1000, review(p1("lib/old.py:3"), p1("gone.py:1", "Missing file"))),
    }, project_root=repo.root)
    hit = json.loads(assert_hit_is_cold(store, job, computes)[0])
    assert [f["id"] for f in hit["outside_diff_findings"]] == ["O-001", "O-002"]
    assert [f["id"] for f in hit["unanchored_findings"]] == ["U-001", "U-002", "U-003"]


MARKDOWN = "### [BLOCKER] SQL built from user input\nThe query in `src/db.py:42` concatenates.\n"


def test_markdown_findings_with_citations(store: JobStore, repo: GitRepo,
                                          computes: list[str]) -> None:
    repo.commit({"src/db.py": "q = 1\n" * 50})
    job = make_job(store, {"md": done(1000, MARKDOWN,
                                      output_parser={"kind": "markdown-findings"})},
                   project_root=repo.root)
    hit = json.loads(assert_hit_is_cold(store, job, computes)[0])
    assert hit["per_channel"]["md"]["status"] == "completed"


# -- what invalidates it --------------------------------------------------------------------


def assert_follows(store: JobStore, job: str, change: Callable[[], None],
                   computes: list[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Run, change something, run again: the second run is a cold compute's bytes."""
    before = rendered(store, job)
    change()
    after = rendered(store, job)
    assert after == cold(store, job)
    assert after != before
    return json.loads(before[0]), json.loads(after[0])


def test_a_changed_channel_output(store: JobStore, computes: list[str]) -> None:
    job = make_job(store, {"a": done(1000, review(p1()))})
    assert_follows(store, job, lambda: store.write_channel_output(job, "a", review()), computes)


def test_a_changed_entry_status(store: JobStore, computes: list[str]) -> None:
    job = make_job(store, {"a": done(1000, review(p1())), "b": done(1000, review())})
    _, after = assert_follows(store, job, lambda: store.update_channel(job, "a", status="failed"),
                              computes)
    assert after["per_channel"]["a"]["status"] == "failed"


def test_a_changed_diff(store: JobStore, repo: GitRepo, computes: list[str]) -> None:
    job = make_job(store, {"a": done(1000, review(p1("lib/old.py:3")))}, project_root=repo.root)
    both = DIFF + DIFF.replace("src/a.py", "lib/old.py")
    before, after = assert_follows(store, job, lambda: store.write_diff(job, both), computes)
    assert (len(before["outside_diff_findings"]), len(after["reconciled_findings"])) == (1, 1)


def test_a_cited_file_created_after_the_first_run(store: JobStore, repo: GitRepo,
                                                   computes: list[str]) -> None:
    job = make_job(store, {"a": done(1000, review(p1("lib/new.py:3")))}, project_root=repo.root)
    before, after = assert_follows(
        store, job, lambda: (repo.root / "lib/new.py").write_text("a\nb\nc\nd\n"), computes)
    assert (len(before["unanchored_findings"]), len(after["outside_diff_findings"])) == (1, 1)


def test_a_cited_file_that_got_shorter(store: JobStore, repo: GitRepo,
                                       computes: list[str]) -> None:
    job = make_job(store, {"a": done(1000, review(p1("lib/old.py:10")))}, project_root=repo.root)
    before, after = assert_follows(
        store, job, lambda: (repo.root / "lib/old.py").write_text("a\nb\n"), computes)
    assert (len(before["outside_diff_findings"]), len(after["unanchored_findings"])) == (1, 1)


def test_a_repository_root_that_resolves_elsewhere(store: JobStore, tmp_path: Path,
                                                   computes: list[str]) -> None:
    for name in ("one", "two"):
        (tmp_path / name / "src").mkdir(parents=True)
        (tmp_path / name / "src" / "a.py").write_text("x\n")
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "one")
    job = make_job(store, {"a": done(1000, review(p1(f"{tmp_path}/one/src/a.py:1")))},
                   project_root=link)

    def repoint() -> None:
        link.unlink()
        link.symlink_to(tmp_path / "two")

    before, after = assert_follows(store, job, repoint, computes)
    assert (len(before["reconciled_findings"]), len(after["unanchored_findings"])) == (1, 1)


def test_a_markdown_citation_whose_file_appears(store: JobStore, repo: GitRepo,
                                                computes: list[str]) -> None:
    job = make_job(store, {"md": done(1000, MARKDOWN,
                                      output_parser={"kind": "markdown-findings"})},
                   project_root=repo.root)
    before, after = assert_follows(
        store, job, lambda: (repo.root / "src/db.py").write_text("q = 1\n" * 50), computes)
    assert (before["per_channel"]["md"]["status"], after["per_channel"]["md"]["status"]) == (
        "failed", "completed")


def test_raw_output_asked_for_after_a_run_without(store: JobStore, computes: list[str]) -> None:
    job = make_job(store, {"a": done(1000, review(p1()))})
    rendered(store, job)
    with_raw = json.loads(rendered(store, job, include_raw=True)[0])
    assert with_raw["per_channel"]["a"]["raw_output"] == review(p1())
    assert computes == [job, job]


def test_secret_findings_saved_after_a_run(store: JobStore, computes: list[str]) -> None:
    job = make_job(store, {"a": done(1000, review())})
    secret = Finding(severity="P0", location="src/a.py:1", description="Committed credential")
    _, after = assert_follows(store, job, lambda: save_secret_findings(store, job, [secret]),
                              computes)
    assert after["reconciled_findings"][0]["sources"] == ["mmr-secrets"]


def test_another_mmr_version(store: JobStore, computes: list[str],
                             monkeypatch: pytest.MonkeyPatch) -> None:
    job = make_job(store, {"a": done(1000, review(p1()))})
    rendered(store, job)
    monkeypatch.setattr(mmr, "__version__", mmr.__version__ + ".post1")
    rendered(store, job)
    assert computes == [job, job]


def test_a_memo_copied_from_another_job(store: JobStore, computes: list[str]) -> None:
    first = make_job(store, {"a": done(1000, review(p1()))})
    second = make_job(store, {"a": done(1000, review(p1()))})
    rendered(store, first)
    shutil.copyfile(store.paths(first).results_memo, store.paths(second).results_memo)
    document = json.loads(rendered(store, second)[0])
    assert document["job_id"] == second
    assert computes == [first, second]


def test_changed_acks_apply_on_a_hit(store: JobStore, computes: list[str]) -> None:
    job = make_job(store, {"a": done(1000, review(p1()))})
    key = json.loads(rendered(store, job)[0])["reconciled_findings"][0]["finding_key"]

    def ack(findings: list[ReconciledFinding]) -> list[ReconciledFinding]:
        return [f.model_copy(update={"acknowledged": True, "ack_match": "exact",
                                     "ack_reason": "known"}) if f.finding_key == key else f
                for f in findings]

    acked = json.loads(rendered(store, job, apply_acks=ack)[0])
    assert acked["reconciled_findings"][0]["acknowledged"] is True
    assert acked["verdict"] == "pass"
    assert json.loads(rendered(store, job)[0])["verdict"] == "blocked"
    assert computes == [job]


# -- a damaged memo is ignored --------------------------------------------------------------


def _wrong_shape(document: dict[str, Any]) -> dict[str, Any]:
    document["in_diff"][0]["severity"] = "P9"
    return document


def _bad_probe(document: dict[str, Any], root: Path) -> dict[str, Any]:
    # A one-line file recorded with the answer True: 1 == True, so only the answer's type
    # tells it is no line count.
    (root / "one.txt").write_text("one line\n")
    document["probes"].append(["lines", str(root), "one.txt", True])
    return document


def _extra_key(document: dict[str, Any]) -> dict[str, Any]:
    return {**document, "extra": 1}


def _reordered(document: dict[str, Any]) -> dict[str, Any]:
    document["per_channel"] = dict(reversed(list(document["per_channel"].items())))
    return document


def _compact(document: dict[str, Any]) -> bytes:
    """As the memo is written, so the damaged file still starts with its key."""
    return json.dumps(document, separators=(",", ":")).encode()


@pytest.mark.parametrize("damage", [
    lambda data, root: b"{not json",
    lambda data, root: data[: len(data) // 2],
    lambda data, root: _compact(_wrong_shape(json.loads(data))),
    lambda data, root: _compact(_bad_probe(json.loads(data), root)),
    lambda data, root: _compact(_extra_key(json.loads(data))),
    lambda data, root: _compact(_reordered(json.loads(data))),
    lambda data, root: b"[]",
], ids=["garbage", "truncated", "bad-finding", "bad-probe", "extra-key", "reordered", "array"])
def test_a_damaged_memo_is_recomputed_and_replaced(
        store: JobStore, computes: list[str], tmp_path: Path,
        damage: Callable[[bytes, Path], bytes]) -> None:
    job = make_job(store, {"a": done(1000, review(p1())), "b": done(1000, review(p1()))})
    good = cold(store, job)
    memo = store.paths(job).results_memo
    damaged = damage(memo.read_bytes(), tmp_path)
    assert damaged != memo.read_bytes()
    memo.write_bytes(damaged)
    assert rendered(store, job) == good
    assert computes == [job, job]
    assert rendered(store, job) == good and computes == [job, job]  # rewritten: a hit again


def test_the_damage_cases_keep_the_key_in_front(store: JobStore, tmp_path: Path) -> None:
    """The shape checks are reached only by a file that starts with the memo's key."""
    job = make_job(store, {"a": done(1000, review(p1())), "b": done(1000, review(p1()))})
    cold(store, job)
    data = store.paths(job).results_memo.read_bytes()
    prefix = data[: data.index(b'"probes"')]
    for document in (_wrong_shape(json.loads(data)), _bad_probe(json.loads(data), tmp_path),
                     _extra_key(json.loads(data)), _reordered(json.loads(data))):
        assert _compact(document).startswith(prefix)


def test_a_symlinked_memo_is_ignored(store: JobStore, tmp_path: Path,
                                     computes: list[str]) -> None:
    job = make_job(store, {"a": done(1000, review(p1()))})
    good = cold(store, job)
    memo = store.paths(job).results_memo
    elsewhere = tmp_path / "memo.json"
    memo.rename(elsewhere)
    memo.symlink_to(elsewhere)
    assert rendered(store, job) == good
    assert computes == [job, job]
    assert not memo.is_symlink()  # replaced by a regular file, the target left alone


def test_an_oversized_memo_is_ignored(store: JobStore, computes: list[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    job = make_job(store, {"a": done(1000, review(p1()))})
    good = cold(store, job)
    monkeypatch.setattr(stage_memo, "MAX_MEMO_BYTES",
                        store.paths(job).results_memo.stat().st_size - 1)
    assert rendered(store, job) == good
    assert computes == [job, job]


def test_a_memo_that_cannot_be_written_costs_nothing(store: JobStore, computes: list[str],
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    job = make_job(store, {"a": done(1000, review(p1()))})
    memo = store.paths(job).results_memo
    memo.mkdir()
    (memo / "keep").write_text("")  # a directory in its place: the write's rename fails
    first = rendered(store, job)
    assert rendered(store, job) == first
    assert computes == [job, job]
    assert capsys.readouterr().err == ""


# -- found in review: inputs the key must tell apart, files that are not files -----------------


def test_a_lone_surrogate_and_its_escape_are_different_replies(store: JobStore,
                                                               computes: list[str]) -> None:
    job = make_job(store, {"a": done(1000, "note \ud800\n" + review(p1()))})
    first = cold(store, job, include_raw=True)
    store.write_channel_output(job, "a", "note \\ud800\n" + review(p1()))  # the six characters
    assert rendered(store, job, include_raw=True) == cold(store, job, include_raw=True)
    assert rendered(store, job, include_raw=True) != first
    assert computes == [job, job, job]


def test_an_infinite_telemetry_figure_is_not_memoised(store: JobStore,
                                                      computes: list[str]) -> None:
    job = make_job(store, {"a": done(1000, review(p1()))})
    record = store.paths(job).channels_dir / "a.status.json"
    status = json.loads(record.read_text())
    record.write_text(json.dumps({**status, "telemetry": {"cost_usd": float("inf")}}))
    first = cold(store, job)
    assert '"cost_usd": Infinity' in first[0]
    assert not store.paths(job).results_memo.exists()
    assert rendered(store, job) == first and computes == [job, job]


def test_a_deeply_nested_memo_with_the_right_key_is_refused(store: JobStore,
                                                            computes: list[str]) -> None:
    job = make_job(store, {"a": done(1000, review(p1()))})
    good = cold(store, job)
    memo = store.paths(job).results_memo
    data = memo.read_bytes()
    memo.write_bytes(data[: data.index(b'"probes"')] + b'"probes":' + b"[" * 100_000)
    assert rendered(store, job) == good and computes == [job, job]


def test_a_probe_root_with_a_nul_is_a_changed_answer(store: JobStore, computes: list[str],
                                                     tmp_path: Path) -> None:
    job = make_job(store, {"a": done(1000, review(p1()))})
    good = cold(store, job)
    memo = store.paths(job).results_memo
    document = json.loads(memo.read_bytes())
    document["probes"].append(["root", "/tmp/\x00x", "", "/tmp/x"])
    memo.write_bytes(json.dumps(document, separators=(",", ":")).encode())
    assert rendered(store, job) == good and computes == [job, job]


def test_a_parser_registered_since_is_a_different_key(store: JobStore, computes: list[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from mmr.models import ParsedOutput
    from mmr.parsers import registry

    job = make_job(store, {"a": done(1000, review(p1()), output_parser="house-style")})
    first = cold(store, job)  # an unknown name: the default parser
    monkeypatch.setitem(registry._REGISTRY, "house-style",
                        lambda raw: ParsedOutput(approved=True, findings=[], summary="ok"))
    assert rendered(store, job) != first and computes == [job, job]


def test_a_fifo_in_place_of_the_memo_is_ignored(store: JobStore, computes: list[str]) -> None:
    job = make_job(store, {"a": done(1000, review(p1()))})
    good = cold(store, job)
    memo = store.paths(job).results_memo
    memo.unlink()
    os.mkfifo(memo)
    with _no_hang():
        assert rendered(store, job) == good
    assert computes == [job, job]


def test_a_fifo_in_place_of_results_json_is_replaced(store: JobStore) -> None:
    job = make_job(store, {"a": done(1000, review(p1()))})
    results = store.paths(job).results
    os.mkfifo(results)
    with _no_hang():
        store.write_results_text(job, '{"verdict": "blocked"}\n')
    assert results.is_file() and results.read_text() == '{"verdict": "blocked"}\n'


def test_results_json_with_the_same_bytes_but_readable_by_others_is_rewritten(
        store: JobStore) -> None:
    job = make_job(store, {"a": done(1000, review(p1()))})
    results = store.paths(job).results
    results.write_text('{"verdict": "pass"}\n')
    results.chmod(0o644)
    store.write_results_text(job, '{"verdict": "pass"}\n')
    assert stat.S_IMODE(results.stat().st_mode) == 0o600


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


def test_a_fifo_in_place_of_a_channel_log_is_a_read_error_not_a_hang(store: JobStore) -> None:
    from mmr.errors import StoreReadError

    job = make_job(store, {"a": {"status": "failed", "log": "crashed"}})
    log = store.paths(job).channels_dir / "a.log"
    log.unlink()
    os.mkfifo(log)
    with _no_hang(), pytest.raises(StoreReadError) as raised:
        job_results(store, job, apply_acks=no_acks)
    assert str(raised.value).startswith(f"cannot read {log}: not a regular file.")
    assert "remove that path" in str(raised.value)


@pytest.mark.parametrize("change", ["group-writable", "another-owner"])
def test_a_memo_that_is_not_private_is_ignored(store: JobStore, computes: list[str],
                                               change: str) -> None:
    job = make_job(store, {"a": done(1000, review(p1()))})
    good = cold(store, job)
    memo = store.paths(job).results_memo
    if change == "group-writable":
        memo.chmod(0o620)
    else:
        if os.getuid() != 0:
            pytest.skip("needs root to give the memo another owner")
        os.chown(memo, 1, 1)
    assert rendered(store, job) == good and computes == [job, job]


def test_a_hit_warns_of_an_unknown_parser_behind_an_unwrap(
        store: JobStore, computes: list[str], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from mmr.parsers import registry

    spec = {"kind": "unwrap-jsonpath", "wrap": "$.result", "then": "house-stlye"}
    job = make_job(store, {"a": done(1000, json.dumps({"result": review(p1())}),
                                     output_parser=spec)})
    cold(store, job)
    assert "house-stlye" in capsys.readouterr().err
    monkeypatch.setattr(registry, "_warned", set())  # as a new process starts
    rendered(store, job)
    assert computes == [job] and "house-stlye" in capsys.readouterr().err
