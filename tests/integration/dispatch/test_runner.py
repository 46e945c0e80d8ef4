"""dispatch_all with real fake CLIs and a real job store: statuses, files, timing, delivery."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from mmr.dispatch.findings_schema import FINDINGS_SCHEMA_JSON
from mmr.store.layout import UnsafeChannelNameError
from mmr.store.records import parse_timestamp
from tests.fakes.plugin import FakeCliFactory, group_members, wait_until_gone
from tests.integration.dispatch.dispatch_helpers import (
    CLEAN_REPLY,
    FINDING_REPLY,
    channel,
    new_job,
    plan,
)


def test_completed_channel_writes_output_and_parses(fake_cli: FakeCliFactory,
                                                    tmp_path: Path) -> None:
    fake = fake_cli("codex", stdout=FINDING_REPLY)
    job = new_job(tmp_path, ["codex"])

    outcomes = job.dispatch([plan("codex", channel("codex exec", flags=["--x", "y z"]),
                                  prompt="the prompt")])

    outcome = outcomes["codex"]
    assert outcome.status == "completed" and outcome.reason is None and outcome.attempts == 1
    assert outcome.parsed is not None and outcome.parsed.findings[0].location == "src/a.py:3"
    call = fake.last_call()
    assert call["argv"] == ["exec", "--x", "y z"]  # one argv element per flag, no shell
    assert call["stdin"] == "the prompt"
    assert json.loads(job.output("codex") or "") == FINDING_REPLY
    # <ch>.json holds the stdout as a JSON *string*.
    assert isinstance(json.loads(job.file("codex", ".json").read_text()), str)
    assert job.file("codex", ".pid").read_text() == str(call["pid"])
    status = job.status("codex")
    assert status["status"] == "completed" and "reason" not in status
    assert status["output_parser"] == "default"
    assert "attempts" not in status
    started, completed = parse_timestamp(status["started_at"]), parse_timestamp(
        status["completed_at"])
    assert started is not None and completed is not None and started <= completed
    assert status["completed_at"].endswith("Z")
    assert job.log("codex") is None
    assert [(e.channel, e.status) for e in job.events] == [("codex", "running"),
                                                           ("codex", "completed")]
    assert job.store.load(job.job_id).status == "completed"


def test_nonzero_exit_fails_with_stderr_as_log(fake_cli: FakeCliFactory, tmp_path: Path) -> None:
    fake_cli("codex", stdout=CLEAN_REPLY, stderr="boom", exit_code=3)
    job = new_job(tmp_path, ["codex"])

    outcome = job.dispatch([plan("codex", channel("codex"))])["codex"]

    assert outcome.status == "failed" and outcome.reason is None
    assert outcome.parsed is None and outcome.error == "boom"
    assert job.log("codex") == "boom"
    assert job.output("codex") is None  # stdout of a failed run is discarded
    assert job.status("codex")["status"] == "failed"


def test_nonzero_exit_without_stderr_gets_the_exit_line(fake_cli: FakeCliFactory,
                                                        tmp_path: Path) -> None:
    fake_cli("codex", stderr="hidden", exit_code=2)
    job = new_job(tmp_path, ["codex"])

    job.dispatch([plan("codex", channel("codex", stderr="suppress"))])

    assert job.log("codex") == "Process exited with code 2"


def test_empty_stdout_is_a_failure(fake_cli: FakeCliFactory, tmp_path: Path) -> None:
    fake_cli("codex", stdout="")
    job = new_job(tmp_path, ["codex"])

    outcome = job.dispatch([plan("codex", channel("codex"))])["codex"]

    assert outcome.status == "failed"
    assert job.log("codex") == "Process exited with code 0"
    assert not job.file("codex", ".json").exists()


def test_signal_death_is_a_failure(fake_cli: FakeCliFactory, tmp_path: Path) -> None:
    fake_cli("codex", stdout=CLEAN_REPLY, kill_self=9)
    job = new_job(tmp_path, ["codex"])

    outcome = job.dispatch([plan("codex", channel("codex"))])["codex"]

    assert outcome.status == "failed"
    assert (job.log("codex") or "").startswith("Process exited with code null")


def test_missing_executable_is_a_spawn_failure(tmp_path: Path) -> None:
    job = new_job(tmp_path, ["ghost"])

    outcome = job.dispatch([plan("ghost", channel("ghost-cli-not-here --flag"))])["ghost"]

    assert outcome.status == "failed"
    assert job.log("ghost") == "spawn ghost-cli-not-here ENOENT"
    assert not job.file("ghost", ".pid").exists()


def test_timeout_kills_the_grandchild_and_keeps_no_output(fake_cli: FakeCliFactory,
                                                          tmp_path: Path) -> None:
    fake = fake_cli("grok", stdout=CLEAN_REPLY, sleep=30, spawn_grandchild=True,
                    grandchild_sleep=3)
    job = new_job(tmp_path, ["grok"])
    started = time.monotonic()

    outcome = job.dispatch([plan("grok", channel("grok"), timeout_s=0.5)])["grok"]

    assert time.monotonic() - started < 4
    assert outcome.status == "timeout" and outcome.reason is None
    assert job.status("grok")["status"] == "timeout"
    assert not job.file("grok", ".json").exists()
    assert job.log("grok") is None  # no stderr was captured, and no synthetic line
    call = fake.last_call()
    assert wait_until_gone(call["grandchild_pid"])
    assert group_members(call["pgid"]) == []
    time.sleep(3.2)  # the marker would appear now had the grandchild survived
    assert not fake.marker.exists()


def test_timeout_keeps_captured_stderr_as_log(fake_cli: FakeCliFactory, tmp_path: Path) -> None:
    fake_cli("slow", stderr="thinking...", sleep=30)
    job = new_job(tmp_path, ["slow"])

    job.dispatch([plan("slow", channel("slow"), timeout_s=0.4)])

    assert job.log("slow") == "thinking..."


def test_parallel_channels_overlap(fake_cli: FakeCliFactory, tmp_path: Path) -> None:
    names = ["alpha", "beta", "gamma"]
    for name in names:
        fake_cli(name, stdout=CLEAN_REPLY, sleep=0.5)
    job = new_job(tmp_path, names)
    started = time.monotonic()

    outcomes = job.dispatch([plan(n, channel(n)) for n in names], parallel=True)

    assert time.monotonic() - started < 1.2
    assert list(outcomes) == names
    assert all(o.status == "completed" for o in outcomes.values())


def test_sequential_channels_run_one_at_a_time_in_order(fake_cli: FakeCliFactory,
                                                        tmp_path: Path) -> None:
    names = ["alpha", "beta", "gamma"]
    fakes = [fake_cli(name, stdout=CLEAN_REPLY, sleep=0.4) for name in names]
    job = new_job(tmp_path, names)
    started = time.monotonic()

    job.dispatch([plan(n, channel(n)) for n in names], parallel=False)

    assert time.monotonic() - started >= 1.2
    running = [e.channel for e in job.events if e.status == "running"]
    assert running == names
    pids = [fake.last_call()["pid"] for fake in fakes]
    assert len(set(pids)) == 3


def test_prompt_file_delivery_with_placeholder(fake_cli: FakeCliFactory, tmp_path: Path) -> None:
    fake = fake_cli("grok", stdout=CLEAN_REPLY, read_prompt_file="flag")
    job = new_job(tmp_path, ["grok"])
    chan = channel("grok", prompt_delivery="prompt-file",
                   flags=["--prompt-file", "{{prompt_file}}", "--schema={{findings_schema}}"])

    outcome = job.dispatch([plan("grok", chan, prompt="exact prompt\n")])["grok"]

    assert outcome.status == "completed"
    prompt_path = job.file("grok", ".prompt.txt")
    assert prompt_path.read_text() == "exact prompt\n"  # kept after the run
    call = fake.last_call()
    assert call["argv"] == ["--prompt-file", str(prompt_path.absolute()),
                            f"--schema={FINDINGS_SCHEMA_JSON}"]
    assert call["prompt_file_text"] == "exact prompt\n"
    assert call["stdin"] == ""  # stdin closed at once: a CLI reading it sees EOF


def test_prompt_file_without_placeholder_is_appended(fake_cli: FakeCliFactory,
                                                     tmp_path: Path) -> None:
    fake = fake_cli("agent", stdout=CLEAN_REPLY, read_prompt_file="last")
    job = new_job(tmp_path, ["agent"])

    job.dispatch([plan("agent", channel("agent run", prompt_delivery="prompt-file"),
                       prompt="p")])

    call = fake.last_call()
    assert call["argv"] == ["run", str(job.file("agent", ".prompt.txt").absolute())]
    assert call["prompt_file_text"] == "p"


def test_channel_that_never_reads_stdin(fake_cli: FakeCliFactory, tmp_path: Path) -> None:
    fake_cli("lazy", stdout=CLEAN_REPLY, ignore_stdin=True)
    job = new_job(tmp_path, ["lazy"])

    outcome = job.dispatch([plan("lazy", channel("lazy"), prompt="x" * (4 * 1024 * 1024))])

    assert outcome["lazy"].status == "completed"


def test_channel_env_cwd_and_neutral_posture(fake_cli: FakeCliFactory, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "parent-value")
    fake = fake_cli("grok", stdout=CLEAN_REPLY)
    job = new_job(tmp_path, ["grok"])
    chan = channel("grok", cwd="{{neutral_cwd}}",
                   env={"HOME": "{{neutral_home}}", "MODE": "review"})

    job.dispatch([plan("grok", chan)])

    call = fake.last_call()
    assert call["env"]["MODE"] == "review" and call["env"]["OPENAI_API_KEY"] == "parent-value"
    assert call["env"]["HOME"] == call["cwd"] == call["env"]["PWD"]
    assert Path(call["cwd"]).name.startswith("mmr-grok-")
    assert not Path(call["cwd"]).exists()  # cleaned up after the run


def test_repo_root_and_vars_placeholders(fake_cli: FakeCliFactory, tmp_path: Path) -> None:
    fake = fake_cli("mm", stdout=CLEAN_REPLY)
    job = new_job(tmp_path, ["mm"])
    chan = channel("mm", flags=["--add-dir", "{{repo_root}}", "--effort", "{{var.effort}}",
                                "--model", "{{var.model}}"],
                   vars={"effort": None, "model": "M2"})

    job.dispatch([plan("mm", chan)])

    assert fake.last_call()["argv"] == ["--add-dir", str(job.repo_root), "--model", "M2"]


def test_unknown_placeholder_fails_only_that_channel(fake_cli: FakeCliFactory,
                                                     tmp_path: Path) -> None:
    fake_cli("good", stdout=CLEAN_REPLY)
    job = new_job(tmp_path, ["bad", "good"])

    outcomes = job.dispatch([plan("bad", channel("good", flags=["{{nope}}"])),
                             plan("good", channel("good"))])

    assert outcomes["bad"].status == "failed"
    assert "unknown placeholder {{nope}}" in (job.log("bad") or "")
    assert outcomes["good"].status == "completed"


def test_unsafe_name_raises_before_anything_runs(fake_cli: FakeCliFactory,
                                                 tmp_path: Path) -> None:
    fake = fake_cli("codex", stdout=CLEAN_REPLY)
    job = new_job(tmp_path, ["codex"])

    with pytest.raises(UnsafeChannelNameError, match="Unsafe channel name"):
        job.dispatch([plan("codex", channel("codex")), plan("a/b", channel("codex"))])

    assert fake.calls() == []
