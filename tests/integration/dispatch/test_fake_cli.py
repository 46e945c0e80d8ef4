"""The fake CLI harness itself: other areas rely on these behaviours."""

from __future__ import annotations

import json
import os
import shutil
import signal
from pathlib import Path

import anyio

from mmr.process.subprocess import ProcessRequest, run_process
from tests.fakes.plugin import FakeCliFactory

FAKECLI = Path(__file__).resolve().parents[2] / "fakes" / "fakecli.py"


def run(*argv: str, env: dict[str, str] | None = None, stdin: bytes | None = None) -> bytes:
    full_env = {**os.environ, **(env or {})}
    outcome = anyio.run(run_process, ProcessRequest(argv, env=full_env, stdin=stdin, timeout_s=10))
    return outcome.stdout


def test_fake_is_found_on_path_and_records_every_call(fake_cli: FakeCliFactory) -> None:
    fake = fake_cli("claude", stdout={"result": "ok"})
    assert shutil.which("claude") == str(fake.path)
    assert json.loads(run("claude", "-p", stdin=b"one")) == {"result": "ok"}
    run("claude", "--again", stdin=b"two")
    calls = fake.calls()
    assert [c["argv"] for c in calls] == [["-p"], ["--again"]]
    assert [c["stdin"] for c in calls] == ["one", "two"]
    assert [c["invocation"] for c in calls] == [0, 1]
    assert calls[0]["stdin_isatty"] is False


def test_sequence_replies_by_invocation_and_repeats_the_last(fake_cli: FakeCliFactory) -> None:
    fake_cli("grok", stdout_sequence=[{"stopReason": "Cancelled"}, {"stopReason": "EndTurn"}])
    replies = [json.loads(run("grok"))["stopReason"] for _ in range(3)]
    assert replies == ["Cancelled", "EndTurn", "EndTurn"]


def test_env_overrides_beat_the_fixture_config(fake_cli: FakeCliFactory, tmp_path: Path) -> None:
    fake = fake_cli("codex", stdout="from-config")
    outcome = anyio.run(run_process, ProcessRequest(
        ("codex",),
        env={**os.environ, "FAKE_STDOUT": "from-env", "FAKE_EXIT": "7", "FAKE_STDERR": "e"},
        timeout_s=10,
    ))
    assert (outcome.stdout, outcome.rc, outcome.stderr) == (b"from-env", 7, b"e")
    assert fake.last_call()["env"]["FAKE_EXIT"] == "7"


def test_bytes_reply_is_exact_and_kill_self_works(fake_cli: FakeCliFactory) -> None:
    fake_cli("raw", stdout=b"\xff\x00half\xc3", kill_self=int(signal.SIGKILL))
    outcome = anyio.run(run_process, ProcessRequest(("raw",), timeout_s=10))
    assert outcome.stdout == b"\xff\x00half\xc3" and outcome.killed_by == signal.SIGKILL


def test_fakecli_runs_directly_under_any_name(tmp_path: Path) -> None:
    # As a user installs a CLI: symlink the script under a channel's name, drive it by env only.
    link = tmp_path / "fake-ok"
    link.symlink_to(FAKECLI)
    record_dir = tmp_path / "rec"
    record_dir.mkdir()
    env = {"FAKE_STDOUT": "hi", "FAKE_RECORD_DIR": str(record_dir)}
    assert run(str(link), "--flag", env=env, stdin=b"prompt") == b"hi"
    (line,) = (record_dir / "fake-ok.jsonl").read_text().splitlines()
    assert json.loads(line)["argv"] == ["--flag"]
    assert json.loads(line)["stdin"] == "prompt"
