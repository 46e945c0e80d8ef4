"""The job store: create, load, merge, derive, register, files."""

from __future__ import annotations

import json
import re
import stat
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pydantic import ValidationError

from mmr.errors import JobNotFoundError
from mmr.store.jobs import ChannelExistsError, JobStore
from mmr.store.layout import UnsafeChannelNameError
from mmr.store.records import ChannelJobEntry, ReviewControls, derive_job_status

from .reference_job import REFERENCE_JOB, REFERENCE_JOB_ID, write_reference_job

CREATED = datetime(2026, 5, 22, 0, 0, 0, tzinfo=UTC)


def _create(store: JobStore, channels: tuple[str, ...] = ("codex", "gemini"), **extra: object):
    return store.create_job(
        channels, fix_threshold="P2", format="json", min_completed_channels=2,
        created_at=CREATED, **extra,  # type: ignore[arg-type]
    )


def _job_json(store: JobStore, job_id: str) -> dict[str, object]:
    return json.loads((store.root / job_id / "job.json").read_text())


def test_opening_the_store_creates_the_jobs_dir_privately(tmp_path: Path) -> None:
    store = JobStore(tmp_path / "home" / ".mmr" / "jobs")
    assert store.root.is_dir()
    assert stat.S_IMODE(store.root.stat().st_mode) == 0o700


def test_create_writes_job_json_in_reference_order_with_dispatched_channels(
    store: JobStore,
) -> None:
    controls = ReviewControls(max_rounds=5, accept_new_acks=False, trust_project_acks=True,
                              trust_project_config=False, config_base_ref="main")
    job = _create(store, session_id="s1", round=2, review_controls=controls,
                  trust_mode="base-ref", proposed_config_change=True, project_root="/repo")
    assert re.fullmatch(r"mmr-[a-f0-9]{12}", job.job_id)
    on_disk = json.loads((store.root / job.job_id / "job.json").read_text())
    assert list(on_disk) == [
        "job_id", "status", "fix_threshold", "format", "created_at", "channels",
        "min_completed_channels", "session_id", "round", "review_controls", "trust_mode",
        "proposed_config_change", "kind", "project_root",
    ]
    assert on_disk["status"] == "dispatched"
    assert on_disk["created_at"] == "2026-05-22T00:00:00.000Z"
    assert on_disk["channels"] == {
        "codex": {"status": "dispatched", "auth": "ok"},
        "gemini": {"status": "dispatched", "auth": "ok"},
    }
    assert on_disk["review_controls"] == {
        "max_rounds": 5, "accept_new_acks": False, "trust_project_acks": True,
        "trust_project_config": False, "config_base_ref": "main",
    }
    assert on_disk["kind"] == "review"
    assert (store.root / job.job_id / "channels").is_dir()
    assert stat.S_IMODE((store.root / job.job_id).stat().st_mode) == 0o700


def test_create_then_load_round_trips(store: JobStore) -> None:
    job = _create(store, trust_mode="non-git")
    loaded = store.load(job.job_id)
    assert loaded.model_dump() == job.model_dump()
    assert loaded.status == "dispatched"
    assert loaded.worker_state is None


def test_create_refuses_an_unsafe_channel_before_making_a_directory(store: JobStore) -> None:
    with pytest.raises(UnsafeChannelNameError, match=r"Unsafe channel name: \.\./x"):
        _create(store, channels=("codex", "../x"))
    assert list(store.root.iterdir()) == []


def test_status_files_override_entries_and_job_status_is_derived(store: JobStore) -> None:
    job = _create(store)
    store.update_channel(job.job_id, "codex", status="running",
                         started_at="2026-05-22T00:00:01.000Z")
    loaded = store.load(job.job_id)
    assert loaded.channels["codex"].status == "running"
    assert loaded.channels["codex"].auth == "ok"  # from job.json, not the status file
    assert loaded.status == "running"
    store.update_channel(job.job_id, "codex", status="completed",
                         completed_at="2026-05-22T00:00:05.000Z")
    store.update_channel(job.job_id, "gemini", status="not_installed", auth="failed",
                         recovery="gemini not found on PATH")
    loaded = store.load(job.job_id)
    assert loaded.status == "completed"
    assert loaded.channels["codex"].started_at == "2026-05-22T00:00:01.000Z"
    assert _job_json(store, job.job_id)["status"] == "dispatched"
    status_file = store.root / job.job_id / "channels" / "codex.status.json"
    assert json.loads(status_file.read_text()) == {
        "status": "completed", "started_at": "2026-05-22T00:00:01.000Z",
        "completed_at": "2026-05-22T00:00:05.000Z",
    }


@pytest.mark.parametrize(
    ("statuses", "expected"),
    [
        ([], "completed"),
        (["dispatched", "dispatched"], "dispatched"),
        (["dispatched", "failed"], "dispatched"),
        (["dispatched", "completed"], "running"),
        (["running", "skipped"], "running"),
        (["completed", "timeout", "auth_failed", "not_installed", "skipped", "failed"],
         "completed"),
    ],
)
def test_derive_job_status(statuses: list[str], expected: str) -> None:
    assert derive_job_status(statuses) == expected


def test_job_json_status_is_never_trusted(store: JobStore) -> None:
    job = _create(store)
    raw = _job_json(store, job.job_id)
    raw["status"] = "completed"
    (store.root / job.job_id / "job.json").write_text(json.dumps(raw))
    assert store.load(job.job_id).status == "dispatched"


def test_update_with_none_removes_a_key_and_pydantic_values_are_stored_as_json(
    store: JobStore,
) -> None:
    job = _create(store)
    store.update_channel(job.job_id, "codex", status="failed", reason="parse_error",
                         completed_at="2026-05-22T00:00:05.000Z")
    store.update_channel(job.job_id, "codex", status="running", reason=None, completed_at=None,
                         telemetry=ReviewControls(max_rounds=1), attempts=2)
    entry = store.load(job.job_id).channels["codex"]
    assert entry.status == "running"
    assert entry.reason is None and entry.completed_at is None
    assert entry.attempts == 2
    assert entry.telemetry == {"max_rounds": 1, "accept_new_acks": False,
                               "trust_project_acks": False, "trust_project_config": False}


def test_update_refuses_an_invalid_status_and_leaves_the_file_alone(store: JobStore) -> None:
    job = _create(store)
    store.update_channel(job.job_id, "codex", status="running")
    with pytest.raises(ValidationError):
        store.update_channel(job.job_id, "codex", status="finished")
    assert store.load(job.job_id).channels["codex"].status == "running"


def test_update_refuses_unsafe_names_and_unknown_jobs(store: JobStore) -> None:
    job = _create(store)
    with pytest.raises(UnsafeChannelNameError):
        store.update_channel(job.job_id, "../../escape", status="running")
    with pytest.raises(JobNotFoundError, match="Job not found: mmr-ffffffffffff"):
        store.update_channel("mmr-ffffffffffff", "codex", status="running")
    assert not (store.root / "mmr-ffffffffffff").exists()


def test_a_corrupt_status_file_reads_as_failed_not_running(store: JobStore) -> None:
    job = _create(store)
    (store.root / job.job_id / "channels" / "codex.status.json").write_text('{"status": "runn')
    (store.root / job.job_id / "channels" / "gemini.status.json").write_text('{"status": "x"}')
    loaded = store.load(job.job_id)
    for name in ("codex", "gemini"):
        assert loaded.channels[name].status == "failed"
        assert loaded.channels[name].error == "corrupt status file"
    assert loaded.status == "completed"
    # The next update starts the file afresh instead of failing on it.
    store.update_channel(job.job_id, "codex", status="completed")
    assert store.load(job.job_id).channels["codex"].status == "completed"


@pytest.mark.parametrize(
    "content",
    [
        "", "not json", "[]", '{"channels": {}}', '{"job_id": 7, "channels": {}}',
        '{"job_id": "x"}', '{"job_id": "x", "channels": []}',
        '{"job_id": "x", "channels": {"a/b": {"status": "dispatched"}}}',
        '{"job_id": "x", "channels": {"a": {"status": "bogus"}}}',
        '{"job_id": "x", "channels": {"a": "dispatched"}}',
        '{"job_id": "x", "channels": {}, "fix_threshold": "P9"}',
        '\xff\xfe',
    ],
)
def test_a_malformed_job_json_is_not_found(store: JobStore, content: str) -> None:
    job_dir = store.root / "mmr-aaaaaaaaaaaa"
    job_dir.mkdir()
    (job_dir / "job.json").write_bytes(content.encode("latin-1"))
    with pytest.raises(JobNotFoundError, match=r"^Job not found: mmr-aaaaaaaaaaaa$"):
        store.load("mmr-aaaaaaaaaaaa")


@pytest.mark.parametrize("job_id", ["../x", "..", "/etc", "mmr-x/../../y", "a\x00b", ""])
def test_escaping_ids_are_not_found(store: JobStore, job_id: str) -> None:
    with pytest.raises(JobNotFoundError):
        store.load(job_id)


def test_an_id_pointing_at_a_real_job_outside_the_jobs_dir_is_still_refused(
    store: JobStore,
) -> None:
    job = _create(store)
    outside = store.root.parent / "x"
    (store.root / job.job_id).rename(outside)
    assert (outside / "job.json").is_file()
    for job_id in ("../x", str(outside)):
        with pytest.raises(JobNotFoundError):
            store.load(job_id)
        with pytest.raises(JobNotFoundError):
            store.update_channel(job_id, "codex", status="running")
    assert not (outside / "channels" / "codex.status.json").exists()


def test_missing_job_and_symlinked_job_dir_are_not_found(store: JobStore, tmp_path: Path) -> None:
    with pytest.raises(JobNotFoundError):
        store.load("mmr-bbbbbbbbbbbb")
    job = _create(store)
    (store.root / "mmr-cccccccccccc").symlink_to(store.root / job.job_id)
    with pytest.raises(JobNotFoundError):
        store.load("mmr-cccccccccccc")


def test_a_reference_job_loads_and_keeps_unknown_fields(store: JobStore) -> None:
    write_reference_job(store)
    job = store.load(REFERENCE_JOB_ID)
    assert job.status == "completed"
    assert job.fix_threshold == "P1" and job.format == "text" and job.round == 2
    assert job.review_controls is not None and job.review_controls.config_base_ref == "HEAD"
    assert job.kind is None and not job.is_critique
    assert job.channels["codex"].status == "completed"
    assert job.channels["codex"].output_parser == "default"
    assert job.channels["compensating-gemini"].output_parser == {
        "kind": "unwrap-jsonpath", "wrap": "$.result"}
    assert job.channels["compensating-gemini"].compensator is None
    assert job.model_extra == {"some_future_field": {"kept": True}}
    assert job.worker_state is None
    assert store.read_channel_output(REFERENCE_JOB_ID, "codex") == (
        '{"approved": true, "findings": []}')
    assert store.read_log(REFERENCE_JOB_ID, "gemini") == "boom\n"


def test_register_channel_keeps_every_other_field_of_job_json(store: JobStore) -> None:
    write_reference_job(store)
    store.register_channel(REFERENCE_JOB_ID, "agent", ChannelJobEntry(
        status="dispatched", output_parser="default", injected=True))
    raw = _job_json(store, REFERENCE_JOB_ID)
    assert raw["some_future_field"] == {"kept": True}
    assert list(raw) == list(REFERENCE_JOB)
    assert raw["channels"]["agent"] == {  # type: ignore[index]
        "status": "dispatched", "auth": "ok", "output_parser": "default", "injected": True}
    with pytest.raises(ChannelExistsError, match="Channel 'agent' already exists in job "):
        store.register_channel(REFERENCE_JOB_ID, "agent", ChannelJobEntry(status="dispatched"))


def test_register_compensating_pass_records_the_compensator(store: JobStore) -> None:
    job = _create(store)
    name = store.register_compensating_pass(
        job.job_id, "gemini", compensator="claude",
        output_parser={"kind": "unwrap-jsonpath", "wrap": "$.result"})
    assert name == "compensating-gemini"
    assert _job_json(store, job.job_id)["channels"][name] == {  # type: ignore[index]
        "status": "dispatched", "auth": "ok",
        "output_parser": {"kind": "unwrap-jsonpath", "wrap": "$.result"},
        "compensator": "claude",
    }
    missing = store.register_compensating_pass(
        job.job_id, "codex", compensator="compx", output_parser="default",
        status="auth_failed", auth="failed", recovery="compx login")
    entry = store.load(job.job_id).channels[missing]
    assert (entry.status, entry.auth, entry.recovery) == ("auth_failed", "failed", "compx login")


def test_record_worker(store: JobStore) -> None:
    job = _create(store)
    store.record_worker(job.job_id, 4321, started_at=CREATED)
    loaded = store.load(job.job_id)
    assert loaded.worker is not None
    assert (loaded.worker.pid, loaded.worker.started_at) == (4321, "2026-05-22T00:00:00.000Z")
    assert list(_job_json(store, job.job_id))[-1] == "worker"


def test_channel_output_is_a_json_string_literal_with_unicode_kept(store: JobStore) -> None:
    job = _create(store)
    text = 'Réponse {"findings": []}\n\t"quoted" ✓'
    store.write_channel_output(job.job_id, "codex", text)
    raw = (store.root / job.job_id / "channels" / "codex.json").read_bytes()
    assert raw == json.dumps(text, ensure_ascii=False).encode()
    assert store.read_channel_output(job.job_id, "codex") == text
    assert store.read_channel_output(job.job_id, "gemini") is None


def test_an_injected_object_reads_back_as_json_text(store: JobStore) -> None:
    job = _create(store)
    document = {"approved": False, "findings": [], "summary": "Injected external findings"}
    store.write_channel_output_object(job.job_id, "agent", document)
    output = store.read_channel_output(job.job_id, "agent")
    assert output is not None and json.loads(output) == document


def test_channel_logs_are_stored_redacted(store: JobStore) -> None:
    """A CLI's own words go to ``<ch>.log`` (claude's failing stdout envelope included)."""
    token = "ghp_" + "R3alLook1ngT0ken" * 2 + "abcd"
    job = _create(store)
    store.write_log(job.job_id, "claude", f"Channel failed: invalid key {token}")
    log = (store.root / job.job_id / "channels" / "claude.log").read_text()
    assert token not in log
    assert log.startswith("Channel failed: invalid key ")


def test_logs_pids_prompts_and_clearing_an_attempt(store: JobStore) -> None:
    job = _create(store)
    store.write_log(job.job_id, "codex", "first")
    assert store.read_log(job.job_id, "codex") == "first"
    store.write_pid(job.job_id, "codex", 777)
    pid_file = store.root / job.job_id / "channels" / "codex.pid"
    assert pid_file.read_text() == "777"
    store.write_channel_output(job.job_id, "codex", "out")
    path = store.write_channel_prompt(job.job_id, "codex", "the prompt\n")
    assert path == store.root / job.job_id / "channels" / "codex.prompt.txt"
    assert path.read_text() == "the prompt\n"
    store.clear_attempt(job.job_id, "codex")
    assert store.read_log(job.job_id, "codex") is None
    assert not pid_file.exists()
    assert store.read_channel_output(job.job_id, "codex") is None
    assert path.exists()  # the prompt file is kept after the run


def test_prompt_diff_and_results(store: JobStore) -> None:
    job = _create(store)
    store.write_prompt(job.job_id, "base prompt")
    store.write_diff(job.job_id, "diff --git a/x b/x\n")
    store.write_results(job.job_id, {"verdict": "pass", "summary": "Review passed"})
    job_dir = store.root / job.job_id
    assert (job_dir / "prompt.txt").read_text() == "base prompt"
    assert (job_dir / "diff.patch").read_text() == "diff --git a/x b/x\n"
    assert store.read_diff(job.job_id) == "diff --git a/x b/x\n"
    assert json.loads((job_dir / "results.json").read_text())["verdict"] == "pass"
    assert store.worker_log_path(job.job_id) == job_dir / "worker.log"


def test_delete_job(store: JobStore) -> None:
    job = _create(store)
    store.delete_job(job.job_id)
    with pytest.raises(JobNotFoundError):
        store.load(job.job_id)
