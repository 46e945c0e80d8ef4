"""``mmr ack add | list | rm``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mmr.acks.record import AckRecord
from mmr.config.paths import mmr_home
from mmr.fs import dumps_json
from mmr.store.jobs import JobStore
from tests.integration.cli_lifecycle.conftest import (
    RunMmr,
    new_job,
    reconciled_finding,
    write_results,
)
from tests.integration.git_repo_builder import GitRepo

FINDING = reconciled_finding("./src/app.py:12", "Off-by-one in the loop bound at line 12")
KEY = FINDING["finding_key"]
OTHER = reconciled_finding("src/db.py:3", "Query built by string concatenation")


def project_ack(project: GitRepo, key: str = KEY) -> Path:
    return project.root / ".mmr" / "acks" / f"{key}.json"


def user_ack(key: str = KEY) -> Path:
    return mmr_home() / "acks" / f"{key}.json"


@pytest.fixture
def reviewed(store: JobStore) -> str:
    """A finished job whose ``results.json`` reports :data:`FINDING`."""
    job_id = new_job(store)
    write_results(store, job_id, OTHER, FINDING)
    return job_id


def test_add_copies_the_finding_into_the_project_scope(
    reviewed: str, run_mmr: RunMmr, project: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project.root / "src").mkdir()
    monkeypatch.chdir(project.root / "src")  # the project root is the git top-level

    result = run_mmr("ack", "add", KEY, "--reason", "callers clamp the index")

    assert result.code == 0
    assert result.json() == {"added": KEY, "scope": "project"}
    path = project_ack(project)
    text = path.read_text()
    record = json.loads(text)
    # The reference's five keys (so it still loads the file and matches it by key), then the
    # description in place of the shingle: a committed ack is read by reviewers in diffs.
    assert list(record) == ["finding_key", "normalized_location", "description_shingle",
                            "reason", "created_at", "description"]
    assert record["finding_key"] == KEY
    assert record["normalized_location"] == "src/app.py"
    assert record["description_shingle"] == []
    assert record["description"] == FINDING["description"]
    assert record["reason"] == "callers clamp the index"
    assert record["created_at"].endswith("Z")
    assert not text.endswith("\n")
    assert len(text.splitlines()) <= 8
    assert not user_ack().exists()
    # The matcher recomputes the shingle the reference would have stored.
    stored = AckRecord.model_validate(record)
    assert stored.shingle_set == frozenset(FINDING["description_shingle"])
    # How the ack takes effect: committed, then merged, or ratified on this branch.
    assert "commit" in result.err and "--accept-new-acks" in result.err
    assert "default branch" in result.err


def test_a_reference_ack_file_with_its_shingle_still_matches() -> None:
    legacy = {"finding_key": KEY, "normalized_location": "src/app.py",
              "description_shingle": FINDING["description_shingle"],
              "created_at": "2026-01-01T00:00:00.000Z"}
    record = AckRecord.from_json(legacy, KEY)
    assert record is not None
    assert record.shingle_set == frozenset(FINDING["description_shingle"])
    assert record.file_bytes() == dumps_json(legacy)


def test_add_to_the_user_scope(reviewed: str, run_mmr: RunMmr, project: GitRepo) -> None:
    result = run_mmr("ack", "add", KEY, "--scope", "user", "--job", reviewed)

    assert result.code == 0
    assert result.json() == {"added": KEY, "scope": "user"}
    assert "reason" not in json.loads(user_ack().read_text())
    assert not (project.root / ".mmr").exists()
    assert result.err == ""


def test_add_searches_newest_job_first(store: JobStore, run_mmr: RunMmr,
                                       project: GitRepo) -> None:
    from datetime import UTC, datetime, timedelta

    now = datetime.now(UTC)
    older = new_job(store, created_at=now - timedelta(days=2))
    newer = new_job(store, created_at=now - timedelta(days=1))
    moved = {**FINDING, "location": "lib/app.py:12"}  # same key reported elsewhere
    write_results(store, older, FINDING)
    write_results(store, newer, moved)

    assert run_mmr("ack", "add", KEY).code == 0
    assert json.loads(project_ack(project).read_text())["normalized_location"] == "lib/app.py"
    assert run_mmr("ack", "add", KEY, "--job", older).code == 0
    assert json.loads(project_ack(project).read_text())["normalized_location"] == "src/app.py"


def test_add_without_a_source_finding_fails(store: JobStore, run_mmr: RunMmr,
                                            project: GitRepo) -> None:
    anywhere = run_mmr("ack", "add", KEY)
    job_id = new_job(store)
    write_results(store, job_id, OTHER)
    in_job = run_mmr("ack", "add", KEY, "--job", job_id)

    assert (anywhere.code, in_job.code) == (1, 1)
    assert f"No reconciled finding with key {KEY} found in recent jobs." in anywhere.err
    assert f"found in recent jobs (job={job_id})." in in_job.err
    assert "Tip: pass --job <id>" in in_job.err
    assert not (project.root / ".mmr").exists()


def test_add_requires_a_key(run_mmr: RunMmr) -> None:
    result = run_mmr("ack", "add")

    assert result.code == 1
    assert "mmr ack add: <finding-key> required" in result.err


@pytest.mark.parametrize("bad", ["../x", "/etc/passwd", "a" * 39 + "\x00", KEY.upper(),
                                 KEY + ".json", "../" + KEY[3:]])
def test_keys_that_are_not_40_hex_are_refused(
    reviewed: str, run_mmr: RunMmr, project: GitRepo, bad: str
) -> None:
    add = run_mmr("ack", "add", bad, "--scope", "user")
    rm = run_mmr("ack", "rm", bad)

    assert (add.code, rm.code) == (1, 1)
    assert "Invalid finding_key:" in add.err and "must match ^[a-f0-9]{40}$" in add.err
    assert "Invalid finding_key:" in rm.err
    assert not (mmr_home() / "acks").exists()
    assert not (project.root / ".mmr").exists()


@pytest.mark.parametrize("bad", ["../x", f"/abs/{'a' * 12}", "mmr-0123456789ab\x00",
                                 "mmr-0123456789AB", "../jobs/mmr-0123456789ab"])
def test_job_ids_must_be_strict(reviewed: str, run_mmr: RunMmr, bad: str) -> None:
    result = run_mmr("ack", "add", KEY, "--job", bad)

    assert result.code == 1
    assert "Invalid job id:" in result.err
    assert "must match ^mmr-[a-f0-9]{12}$" in result.err


def test_list_user_first_and_project_replaces_user_in_place(
    store: JobStore, run_mmr: RunMmr
) -> None:
    third = reconciled_finding("src/c.py", "Third finding about caching")
    job_id = new_job(store)
    write_results(store, job_id, FINDING, OTHER, third)
    run_mmr("ack", "add", KEY, "--scope", "user", "--reason", "user reason")
    run_mmr("ack", "add", OTHER["finding_key"], "--scope", "user")
    run_mmr("ack", "add", KEY, "--reason", "project reason")
    run_mmr("ack", "add", third["finding_key"])

    result = run_mmr("ack", "list")
    by_scope = run_mmr("ack", "list", "--scope", "user")  # accepted, still both scopes

    assert result.code == 0
    listed = result.json()
    user_order = sorted([KEY, OTHER["finding_key"]])
    assert [r["finding_key"] for r in listed] == [*user_order, third["finding_key"]]
    assert next(r for r in listed if r["finding_key"] == KEY)["reason"] == "project reason"
    assert by_scope.json() == listed


def test_list_is_empty_without_acks(run_mmr: RunMmr) -> None:
    result = run_mmr("ack", "list")

    assert (result.code, result.out) == (0, "[]\n")


def test_list_skips_invalid_files(reviewed: str, run_mmr: RunMmr) -> None:
    run_mmr("ack", "add", KEY, "--scope", "user")
    other_key = OTHER["finding_key"]
    user_ack(other_key).write_text(json.dumps({"finding_key": KEY}))  # wrong key, no fields

    assert [r["finding_key"] for r in run_mmr("ack", "list").json()] == [KEY]


def test_rm_removes_from_the_chosen_scope_only(reviewed: str, run_mmr: RunMmr,
                                               project: GitRepo) -> None:
    run_mmr("ack", "add", KEY)
    run_mmr("ack", "add", KEY, "--scope", "user")

    removed = run_mmr("ack", "rm", KEY, "--scope", "user")
    absent = run_mmr("ack", "rm", KEY, "--scope", "user")

    assert removed.code == 0
    assert removed.json() == {"removed": KEY, "scope": "user", "existed": True}
    assert absent.code == 0
    assert absent.json() == {"removed": KEY, "scope": "user", "existed": False}
    assert not user_ack().exists()
    assert project_ack(project).exists()
    assert run_mmr("ack", "rm", KEY).json() == {"removed": KEY, "scope": "project",
                                                "existed": True}
    assert not project_ack(project).exists()


def test_rm_requires_a_key(run_mmr: RunMmr) -> None:
    result = run_mmr("ack", "rm")

    assert result.code == 1
    assert "mmr ack rm: <finding-key> required" in result.err


def test_add_and_rm_reject_scope_all(reviewed: str, run_mmr: RunMmr) -> None:
    add = run_mmr("ack", "add", KEY, "--scope", "all")
    rm = run_mmr("ack", "rm", KEY, "--scope", "all")

    assert (add.code, rm.code) == (1, 1)
    assert "mmr: error: invalid value 'all' for '--scope'" in add.err
    # Flags an action does not use are usage errors too (the reference ignores them).
    assert run_mmr("ack", "rm", KEY, "--reason", "x").code == 1
    assert run_mmr("ack", "list", "--job", "mmr-0123456789ab").code == 1
    assert run_mmr("ack").code == 1


def test_a_symlinked_project_acks_dir_is_refused(
    reviewed: str, run_mmr: RunMmr, project: GitRepo, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (project.root / ".mmr").symlink_to(outside)

    result = run_mmr("ack", "add", KEY)
    listed = run_mmr("ack", "list")

    assert (result.code, listed.code) == (1, 1)
    assert "escapes its root" in result.err
    assert list(outside.iterdir()) == []


def test_unknown_action_is_a_usage_error(run_mmr: RunMmr) -> None:
    result = run_mmr("ack", "approve", KEY)

    assert result.code == 1
    assert "mmr: error: unknown command 'approve'" in result.err
