"""Parse at settle, the retry policy, the incomplete guard, telemetry and the clean-tree check."""

from __future__ import annotations

import json
import subprocess
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from mmr.store.records import elapsed_ms
from tests.fakes.plugin import FakeCliFactory
from tests.integration.dispatch.dispatch_helpers import CLEAN_REPLY, channel, new_job, plan

GUARDED_PARSER: dict[str, Any] = {
    "kind": "unwrap-jsonpath", "wrap": "$.text", "then": "default-last",
    "incomplete": {"status_path": "$.stopReason", "values": ["Cancelled"],
                   "message": "grok stopped early"},
}
CANCELLED = json.dumps({"text": "", "stopReason": "Cancelled"})
END_TURN = json.dumps({"text": json.dumps(CLEAN_REPLY), "stopReason": "EndTurn"})


@pytest.fixture(autouse=True)
def _no_retry_delay(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MMR_INCOMPLETE_RETRY_DELAY_MS", "0")


# --- parse at settle and the generic retry policy ---------------------------------------

def test_unparseable_reply_is_a_parse_error_and_keeps_the_output(fake_cli: FakeCliFactory,
                                                                 tmp_path: Path) -> None:
    fake = fake_cli("codex", stdout="Sure! The code looks great.")
    job = new_job(tmp_path, ["codex"])

    outcome = job.dispatch([plan("codex", channel("codex"))])["codex"]

    assert len(fake.calls()) == 1  # no retry policy: one run
    assert outcome.status == "failed" and outcome.reason == "parse_error"
    assert outcome.parsed is None
    assert (job.log("codex") or "").startswith("Failed to parse channel output:")
    assert job.output("codex") == "Sure! The code looks great."
    status = job.status("codex")
    assert status["status"] == "failed" and status["reason"] == "parse_error"


def test_parse_error_is_retried_by_policy(fake_cli: FakeCliFactory, tmp_path: Path) -> None:
    fake = fake_cli("mm", stdout_sequence=["no json here", json.dumps(CLEAN_REPLY)])
    job = new_job(tmp_path, ["mm"])
    chan = channel("mm", retry={"attempts": 1, "on": ["parse_error"]})

    outcome = job.dispatch([plan("mm", chan)])["mm"]

    assert len(fake.calls()) == 2
    assert outcome.status == "completed" and outcome.attempts == 2
    assert outcome.parsed is not None and outcome.parsed.summary == "looks fine"
    status = job.status("mm")
    assert status["attempts"] == 2 and "reason" not in status
    assert job.log("mm") == "attempt 1: failed (parse_error)"


def test_retry_stops_after_its_attempts(fake_cli: FakeCliFactory, tmp_path: Path) -> None:
    fake = fake_cli("mm", stdout="still prose")
    job = new_job(tmp_path, ["mm"])
    chan = channel("mm", retry={"attempts": 2, "on": ["failed", "parse_error"]})

    outcome = job.dispatch([plan("mm", chan)])["mm"]

    assert len(fake.calls()) == 3
    assert outcome.status == "failed" and outcome.reason == "parse_error"
    log = (job.log("mm") or "").splitlines()
    assert log[:2] == ["attempt 1: failed (parse_error)", "attempt 2: failed (parse_error)"]
    assert log[2].startswith("Failed to parse channel output:")
    assert job.status("mm")["attempts"] == 3


def test_failed_run_is_retried_from_a_clean_slate(fake_cli: FakeCliFactory,
                                                  tmp_path: Path) -> None:
    fake = fake_cli("mm", stdout_sequence=["", json.dumps(CLEAN_REPLY)])
    job = new_job(tmp_path, ["mm"])
    chan = channel("mm", retry={"attempts": 1})  # on: [failed] by default

    outcome = job.dispatch([plan("mm", chan)])["mm"]

    assert outcome.status == "completed" and len(fake.calls()) == 2
    assert job.log("mm") == "attempt 1: failed"
    assert job.file("mm", ".pid").read_text() == str(fake.calls()[1]["pid"])


def test_parse_error_not_listed_is_not_retried(fake_cli: FakeCliFactory, tmp_path: Path) -> None:
    fake = fake_cli("mm", stdout="prose")
    job = new_job(tmp_path, ["mm"])

    job.dispatch([plan("mm", channel("mm", retry={"attempts": 3, "on": ["failed"]}))])

    assert len(fake.calls()) == 1


def test_a_timeout_is_never_retried(fake_cli: FakeCliFactory, tmp_path: Path) -> None:
    fake = fake_cli("mm", stdout=CLEAN_REPLY, sleep=30)
    job = new_job(tmp_path, ["mm"])
    chan = channel("mm", retry={"attempts": 2, "on": ["failed", "parse_error"]})

    outcome = job.dispatch([plan("mm", chan, timeout_s=0.4)])["mm"]

    assert outcome.status == "timeout" and len(fake.calls()) == 1


def test_citation_gate_failure_is_gate_failed(fake_cli: FakeCliFactory, tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "real.py").write_text("x = 1\n")
    missing = "### [BLOCKER] broken\nsrc/missing.py:12 divides by zero\n"
    cited = "### [BLOCKER] broken\nsrc/real.py:1 divides by zero\n"
    fake = fake_cli("mmx", stdout_sequence=[missing, cited])
    job = new_job(tmp_path, ["mmx", "mmy"])
    chan = channel("mmx", output_parser={"kind": "markdown-findings"})

    first = job.dispatch([plan("mmx", chan)])["mmx"]
    second = job.dispatch([plan("mmy", chan)])["mmy"]

    assert first.status == "failed" and first.reason == "gate_failed"
    assert (job.log("mmx") or "").startswith("Failed to parse channel output: markdown-findings")
    assert second.status == "completed"
    assert second.parsed is not None and second.parsed.findings[0].location == "src/real.py:1"
    assert len(fake.calls()) == 2


# --- the incomplete guard ---------------------------------------------------------------

def test_cancelled_then_end_turn_is_redispatched_once(fake_cli: FakeCliFactory,
                                                      tmp_path: Path) -> None:
    fake = fake_cli("grok", stdout_sequence=[CANCELLED, END_TURN])
    job = new_job(tmp_path, ["grok"])

    outcome = job.dispatch([plan("grok", channel("grok", output_parser=GUARDED_PARSER))])["grok"]

    assert len(fake.calls()) == 2
    assert outcome.status == "completed" and outcome.attempts == 2
    assert "EndTurn" in (job.output("grok") or "")
    assert job.status("grok")["attempts"] == 2
    assert job.status("grok")["output_parser"] == GUARDED_PARSER


def test_cancelled_twice_fails_as_incomplete(fake_cli: FakeCliFactory, tmp_path: Path) -> None:
    fake = fake_cli("grok", stdout=CANCELLED)
    job = new_job(tmp_path, ["grok"])

    outcome = job.dispatch([plan("grok", channel("grok", output_parser=GUARDED_PARSER))])["grok"]

    assert len(fake.calls()) == 2
    assert outcome.status == "failed" and outcome.reason == "incomplete"
    assert "remained incomplete after one retry" in (job.log("grok") or "")
    assert "Cancelled" in (job.output("grok") or "")
    assert job.status("grok")["reason"] == "incomplete"


def test_end_turn_runs_once(fake_cli: FakeCliFactory, tmp_path: Path) -> None:
    fake = fake_cli("grok", stdout=END_TURN)
    job = new_job(tmp_path, ["grok"])

    job.dispatch([plan("grok", channel("grok", output_parser=GUARDED_PARSER))])

    assert len(fake.calls()) == 1


@pytest.mark.parametrize("parser", [
    "default",
    {"kind": "unwrap-jsonpath", "wrap": "$.text", "then": "default-last"},
])
def test_guardless_parser_runs_once_even_when_cancelled(fake_cli: FakeCliFactory,
                                                        tmp_path: Path, parser: object) -> None:
    fake = fake_cli("grok", stdout=CANCELLED)
    job = new_job(tmp_path, ["grok"])

    outcome = job.dispatch([plan("grok", channel("grok", output_parser=parser))])["grok"]

    assert len(fake.calls()) == 1 and outcome.attempts == 1


def test_retry_delay_counts_in_elapsed(fake_cli: FakeCliFactory, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MMR_INCOMPLETE_RETRY_DELAY_MS", "400")
    fake_cli("grok", stdout_sequence=[CANCELLED, END_TURN])
    job = new_job(tmp_path, ["grok"])

    job.dispatch([plan("grok", channel("grok", output_parser=GUARDED_PARSER))])

    status = job.status("grok")
    elapsed = elapsed_ms(status["started_at"], status["completed_at"])
    assert elapsed is not None and elapsed >= 350


def test_guard_retry_rereads_the_prompt_file(fake_cli: FakeCliFactory, tmp_path: Path) -> None:
    fake = fake_cli("grok", stdout_sequence=[CANCELLED, END_TURN], read_prompt_file="last")
    job = new_job(tmp_path, ["grok"])
    chan = channel("grok", output_parser=GUARDED_PARSER, prompt_delivery="prompt-file")

    job.dispatch([plan("grok", chan, prompt="same prompt")])

    assert [c["prompt_file_text"] for c in fake.calls()] == ["same prompt", "same prompt"]


def test_guard_retry_that_times_out_is_a_timeout(fake_cli: FakeCliFactory,
                                                 tmp_path: Path) -> None:
    # First run replies Cancelled; the second one hangs past the deadline.
    script = fake_cli("grok").path
    counter = tmp_path / "grok-runs"
    script.write_text(textwrap.dedent(f"""\
        #!/bin/sh
        n=$(cat {counter} 2>/dev/null || echo 0)
        echo $((n + 1)) > {counter}
        if [ "$n" = 0 ]; then printf '%s' '{CANCELLED}'; exit 0; fi
        exec sleep 30
        """))
    job = new_job(tmp_path, ["grok"])

    outcome = job.dispatch([plan("grok", channel("grok", output_parser=GUARDED_PARSER),
                                 timeout_s=1)])["grok"]

    assert counter.read_text().strip() == "2"
    assert outcome.status == "timeout" and outcome.attempts == 2


# --- telemetry, clean tree, crash isolation ---------------------------------------------

def test_telemetry_is_extracted_at_settle(fake_cli: FakeCliFactory, tmp_path: Path) -> None:
    envelope = {"result": json.dumps(CLEAN_REPLY), "is_error": False,
                "usage": {"input_tokens": 1200, "output_tokens": 80}, "total_cost_usd": 0.25,
                "modelUsage": {"MiniMax-M2": {"contextWindow": 200000}}, "num_turns": "n/a"}
    fake_cli("mm", stdout=envelope)
    job = new_job(tmp_path, ["mm"])
    chan = channel("mm", output_parser={"kind": "unwrap-jsonpath", "wrap": "$.result"},
                   telemetry={"input_tokens": "$.usage.input_tokens",
                              "output_tokens": "$.usage.output_tokens",
                              "cost_usd": "$.total_cost_usd",
                              "context_window": "$.modelUsage.*.contextWindow",
                              "turns": "$.num_turns"})

    outcome = job.dispatch([plan("mm", chan)])["mm"]

    expected = {"input_tokens": 1200, "output_tokens": 80, "cost_usd": 0.25,
                "context_window": 200000}
    assert outcome.status == "completed"
    assert outcome.telemetry is not None
    assert outcome.telemetry.to_json_dict() == expected
    assert job.status("mm")["telemetry"] == expected


def test_telemetry_is_kept_when_the_parse_fails(fake_cli: FakeCliFactory, tmp_path: Path) -> None:
    fake_cli("mm", stdout={"result": "no json", "usage": {"input_tokens": 5}})
    job = new_job(tmp_path, ["mm"])
    chan = channel("mm", output_parser={"kind": "unwrap-jsonpath", "wrap": "$.result"},
                   telemetry={"input_tokens": "$.usage.input_tokens"})

    outcome = job.dispatch([plan("mm", chan)])["mm"]

    assert outcome.reason == "parse_error"
    assert job.status("mm")["telemetry"] == {"input_tokens": 5}


def _git_repo(root: Path) -> Path:
    root.mkdir()
    for args in (["init", "-q"], ["add", "-A"]):
        subprocess.run(["git", *args], cwd=root, check=True)
    (root / "tracked.txt").write_text("v1\n")
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-qm", "init"], cwd=root, check=True)
    return root


def _writer(repo: Path, script: str) -> dict[str, Any]:
    reply = json.dumps(CLEAN_REPLY)
    return {"flags": [f"{script}; printf '%s' '{reply}'"], "cwd": str(repo),
            "assert_clean_tree": True}


def test_assert_clean_tree_fails_a_channel_that_writes(tmp_path: Path) -> None:
    repo = _git_repo(tmp_path / "repo")
    (repo / "tracked.txt").write_text("user edit\n")  # already dirty before the run
    job = new_job(tmp_path, ["writer", "editor", "reader"], repo_root=repo)

    outcomes = job.dispatch([
        plan("writer", channel("sh -c", **_writer(repo, "mkdir -p new && echo x > new/f.txt"))),
        plan("editor", channel("sh -c", **_writer(repo, "echo more >> tracked.txt"))),
        plan("reader", channel("sh -c", **_writer(repo, "cat tracked.txt >/dev/null"))),
    ], parallel=False)

    assert outcomes["writer"].status == "failed"
    assert outcomes["writer"].reason == "dirtied_worktree"
    assert "?? new/f.txt" in (job.log("writer") or "")
    assert (repo / "new" / "f.txt").exists()  # never reverted
    assert outcomes["editor"].reason == "dirtied_worktree"  # a further edit of a dirty file
    assert "tracked.txt" in (job.log("editor") or "")
    assert outcomes["reader"].status == "completed"


def test_a_store_failure_fails_only_that_channel(fake_cli: FakeCliFactory,
                                                 tmp_path: Path) -> None:
    from mmr.store.jobs import JobStore

    class FlakyStore(JobStore):
        def write_channel_output(self, job_id: str, channel: str, text: str) -> None:
            if channel == "flaky":
                raise OSError(28, "No space left on device")
            super().write_channel_output(job_id, channel, text)

    for name in ("flaky", "steady"):
        fake_cli(name, stdout=CLEAN_REPLY, sleep=0.3)
    job = new_job(tmp_path, ["flaky", "steady"])
    job.store = FlakyStore(job.store.root)

    outcomes = job.dispatch([plan("flaky", channel("flaky")), plan("steady", channel("steady"))])

    assert outcomes["flaky"].status == "failed"
    assert "No space left on device" in (job.log("flaky") or "")
    assert outcomes["steady"].status == "completed"


# --- interrupts -------------------------------------------------------------------------

_DRIVER = """
import sys
from pathlib import Path
import anyio
from mmr.config.channel_schema import SubprocessChannel
from mmr.dispatch.interrupts import run_until_interrupted
from mmr.dispatch.plan import ChannelPlan, DispatchContext
from mmr.dispatch.runner import dispatch_all
from mmr.store.jobs import JobStore

store = JobStore(Path(sys.argv[1]))
job = store.create_job(["sleepy", "later"], fix_threshold="P2", format="json",
                       min_completed_channels=1)
print(job.job_id, flush=True)
chan = SubprocessChannel.model_validate({"command": "sleepy", "env": {"HOME": "{{neutral_home}}"}})
plans = [ChannelPlan(n, chan, "p", 30, "default") for n in ("sleepy", "later")]
ctx = DispatchContext(job.job_id, store, Path.cwd(), parallel=False)
anyio.run(run_until_interrupted, lambda: dispatch_all(plans, ctx))
"""


@pytest.mark.parametrize(("sig", "code"), [("SIGINT", 130), ("SIGTERM", 143)])
def test_signal_interrupts_dispatch(fake_cli: FakeCliFactory, tmp_path: Path, sig: str,
                                    code: int) -> None:
    import os
    import signal
    import sys

    from mmr.store.jobs import JobStore
    from tests.fakes.plugin import wait_until_gone

    fake = fake_cli("sleepy", stdout=CLEAN_REPLY, sleep=30, spawn_grandchild=True)
    driver = tmp_path / "driver.py"
    driver.write_text(_DRIVER)
    jobs = tmp_path / "jobs"
    proc = subprocess.Popen([sys.executable, str(driver), str(jobs)], env=os.environ.copy(),
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        job_id = proc.stdout.readline().strip()
        call = fake.wait_for_call(timeout=10)
        time.sleep(0.1)
        proc.send_signal(getattr(signal, sig))
        assert proc.wait(timeout=10) == code
    finally:
        if proc.poll() is None:
            proc.kill()
    assert wait_until_gone(call["pid"]) and wait_until_gone(call["grandchild_pid"])
    assert not Path(call["env"]["HOME"]).exists()  # the neutral directory was removed
    store = JobStore(jobs)
    record = store.load(job_id, sweep=False)
    for name in ("sleepy", "later"):  # in flight, and not started yet
        entry = record.channels[name]
        assert entry.status == "failed" and entry.reason == "interrupted"
        assert store.read_log(job_id, name) == f"interrupted by {sig}"
    assert record.status == "completed"


def test_run_until_interrupted_returns_the_work_result(fake_cli: FakeCliFactory,
                                                       tmp_path: Path) -> None:
    import anyio

    from mmr.dispatch.interrupts import run_until_interrupted
    from mmr.dispatch.runner import dispatch_all

    fake_cli("codex", stdout=CLEAN_REPLY)
    job = new_job(tmp_path, ["codex"])
    plans = [plan("codex", channel("codex"))]
    ctx = job.context()

    outcomes = anyio.run(run_until_interrupted, lambda: dispatch_all(plans, ctx))

    assert outcomes["codex"].status == "completed"
