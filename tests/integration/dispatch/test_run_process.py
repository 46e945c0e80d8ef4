"""run_process with real child processes: exits, stdin/stdout plumbing, limits, spawn errors."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest

from mmr.dispatch.placeholders import PlaceholderValues, expand_argv
from mmr.process.subprocess import ProcessRequest, run_process
from tests.fakes.plugin import FakeCliFactory, wait_until_gone


def request(*argv: str, **kwargs: object) -> ProcessRequest:
    kwargs.setdefault("timeout_s", 10)
    return ProcessRequest(argv=argv, **kwargs)  # type: ignore[arg-type]


def test_success_returns_stdout_and_rc_zero(fake_cli: FakeCliFactory) -> None:
    fake = fake_cli("codex", stdout={"approved": True, "findings": []})

    outcome = anyio.run(run_process, request("codex", "exec", "--x", "y z", stdin=b"the prompt"))

    assert outcome.rc == 0 and outcome.succeeded and outcome.spawned
    assert json.loads(outcome.stdout) == {"approved": True, "findings": []}
    assert not outcome.timed_out and outcome.killed_by is None and not outcome.truncated
    call = fake.last_call()
    assert call["argv"] == ["exec", "--x", "y z"]
    assert call["stdin"] == "the prompt"
    assert call["pgid"] == call["pid"] != os.getpgid(0)  # its own session and group


def test_nonzero_exit_keeps_stdout_and_stderr(fake_cli: FakeCliFactory) -> None:
    fake_cli("claude", stdout="partial", stderr="boom", exit_code=3)

    outcome = anyio.run(run_process, request("claude"))

    assert outcome.rc == 3 and not outcome.succeeded
    assert outcome.stderr_text() == "boom"
    assert outcome.stdout == b"partial"
    assert outcome.exit_message() == "Process exited with code 3"


def test_exit_zero_with_empty_stdout_is_reported_as_is(fake_cli: FakeCliFactory) -> None:
    fake_cli("quiet")
    outcome = anyio.run(run_process, request("quiet"))
    assert outcome.rc == 0 and outcome.stdout == b""
    assert outcome.exit_message() == "Process exited with code 0"


def test_missing_executable_is_an_outcome_not_an_exception(tmp_path: Path) -> None:
    outcome = anyio.run(run_process, request("mmr-no-such-cli-xyz", "-p"))

    assert outcome.not_found and not outcome.spawned
    assert outcome.spawn_error == "spawn mmr-no-such-cli-xyz ENOENT"
    assert outcome.rc is None and outcome.pid is None
    assert outcome.exit_message() == "spawn mmr-no-such-cli-xyz ENOENT"


def test_non_executable_file_is_a_spawn_error(tmp_path: Path) -> None:
    script = tmp_path / "tool"
    script.write_text("#!/bin/sh\necho hi\n")
    outcome = anyio.run(run_process, request(str(script)))
    assert outcome.spawn_error == f"spawn {script} EACCES"
    assert not outcome.not_found


def test_missing_cwd_names_the_directory(fake_cli: FakeCliFactory, tmp_path: Path) -> None:
    fake_cli("grok", stdout="x")
    missing = tmp_path / "gone"
    outcome = anyio.run(run_process, request("grok", cwd=missing))
    assert not outcome.spawned and not outcome.not_found
    assert outcome.spawn_error is not None
    assert "ENOENT" in outcome.spawn_error and str(missing) in outcome.spawn_error


def test_cwd_and_env_reach_the_child(fake_cli: FakeCliFactory, tmp_path: Path) -> None:
    fake = fake_cli("agy", stdout="ok")
    env = {**os.environ, "OPENAI_API_KEY": "sk-parent", "CHANNEL_ONLY": "1"}

    anyio.run(run_process, request("agy", cwd=tmp_path, env=env))

    call = fake.last_call()
    assert call["cwd"] == str(tmp_path.resolve())
    assert call["env"]["OPENAI_API_KEY"] == "sk-parent"
    assert call["env"]["CHANNEL_ONLY"] == "1"


def test_stdin_none_is_closed_so_a_reader_sees_eof(fake_cli: FakeCliFactory) -> None:
    fake = fake_cli("reader", stdout="done")
    outcome = anyio.run(run_process, request("reader", timeout_s=5))
    assert outcome.stdout == b"done"
    assert fake.last_call()["stdin"] == ""


def test_prompt_file_delivery(fake_cli: FakeCliFactory, tmp_path: Path) -> None:
    fake = fake_cli("grok", stdout="ok", read_prompt_file="last")
    prompt_file = tmp_path / "grok.prompt.txt"
    prompt_file.write_text("Review this $& diff\n")
    argv = expand_argv(
        "grok --batch", ["--format", "json"],
        values=PlaceholderValues(channel="grok", prompt_file=prompt_file),
    )

    outcome = anyio.run(run_process, ProcessRequest(tuple(argv), prompt_file=prompt_file,
                                                    timeout_s=5))

    assert outcome.succeeded
    call = fake.last_call()
    assert call["argv"] == ["--batch", "--format", "json", str(prompt_file)]
    assert call["prompt_file_text"] == "Review this $& diff\n"
    assert call["stdin"] == ""  # stdin closed at once, nothing written


def test_missing_prompt_file_is_a_spawn_error(fake_cli: FakeCliFactory, tmp_path: Path) -> None:
    fake = fake_cli("grok", stdout="ok")
    outcome = anyio.run(run_process, request("grok", prompt_file=tmp_path / "nope.txt"))
    assert outcome.spawn_error is not None and "nope.txt" in outcome.spawn_error
    assert fake.calls() == []


def test_child_that_never_reads_a_10mb_stdin_does_not_hang(fake_cli: FakeCliFactory) -> None:
    fake_cli("lazy", stdout="ok", ignore_stdin=True)
    started = time.monotonic()

    outcome = anyio.run(run_process, request("lazy", stdin=b"p" * (10 * 1024 * 1024), timeout_s=5))

    assert outcome.rc == 0 and outcome.stdout == b"ok" and not outcome.timed_out
    assert time.monotonic() - started < 3


def test_child_that_never_reads_stdin_and_lingers_still_settles(
    fake_cli: FakeCliFactory,
) -> None:
    fake_cli("lazy", stdout="late", ignore_stdin=True, sleep=0.3)
    outcome = anyio.run(run_process, request("lazy", stdin=b"p" * (4 * 1024 * 1024), timeout_s=5))
    assert outcome.rc == 0 and outcome.stdout == b"late"


def test_output_before_reading_input_does_not_deadlock(fake_cli: FakeCliFactory) -> None:
    fake = fake_cli("chatty", stdout="end", stdout_before_stdin=1024 * 1024)
    prompt = b"q" * (4 * 1024 * 1024)

    outcome = anyio.run(run_process, request("chatty", stdin=prompt, timeout_s=10))

    assert outcome.rc == 0 and not outcome.timed_out
    assert outcome.stdout_bytes == 1024 * 1024 + 3
    assert fake.last_call()["stdin_bytes"] == len(prompt)


def test_50mb_stdout_is_capped_in_memory_and_on_disk(
    fake_cli: FakeCliFactory, tmp_path: Path
) -> None:
    size = 50 * 1024 * 1024
    fake_cli("flood", stdout="head:", print_bytes=size)
    out_file = tmp_path / "flood.out"
    cap = 64 * 1024

    tracemalloc.start()
    try:
        outcome = anyio.run(run_process, request(
            "flood", stdout_path=out_file, max_capture_bytes=cap, timeout_s=30,
        ))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert outcome.rc == 0
    assert outcome.truncated and outcome.stdout_bytes == size + 5
    assert len(outcome.stdout) == cap and outcome.stdout.startswith(b"head:xxx")
    # Issue 16: the tee keeps the same head as memory; the rest is drained and counted.
    assert out_file.stat().st_size == cap
    assert out_file.read_bytes() == outcome.stdout
    assert peak < 8 * 1024 * 1024, f"peak traced memory {peak} bytes"


def test_stdout_without_cap_is_never_truncated(fake_cli: FakeCliFactory) -> None:
    fake_cli("big", print_bytes=3 * 1024 * 1024)
    outcome = anyio.run(run_process, request("big"))
    assert len(outcome.stdout) == 3 * 1024 * 1024 and not outcome.truncated


def test_stderr_is_capped_keeping_the_head(fake_cli: FakeCliFactory) -> None:
    fake_cli("noisy", stderr="E" * 5000)
    outcome = anyio.run(run_process, request("noisy", max_stderr_bytes=1000))
    assert outcome.stderr == b"E" * 1000 and outcome.stderr_truncated


def test_stderr_suppress_and_passthrough(
    fake_cli: FakeCliFactory, capfd: pytest.CaptureFixture[str]
) -> None:
    fake_cli("loud", stderr="from-the-child", exit_code=2)

    suppressed = anyio.run(run_process, request("loud", stderr="suppress"))
    passed = anyio.run(run_process, request("loud", stderr="passthrough"))

    assert suppressed.stderr == b"" and passed.stderr == b""
    assert suppressed.rc == passed.rc == 2
    assert capfd.readouterr().err.count("from-the-child") == 1


def test_utf8_split_across_reads_decodes_once(fake_cli: FakeCliFactory) -> None:
    text = "é" * 200_000  # 400 000 bytes: many pipe reads, some split inside a character
    fake_cli("accents", stdout=text)
    outcome = anyio.run(run_process, request("accents"))
    assert outcome.stdout_text() == text


def test_self_inflicted_signal_is_reported_without_timeout(fake_cli: FakeCliFactory) -> None:
    fake_cli("crash", stdout="x", kill_self=int(signal.SIGKILL))
    outcome = anyio.run(run_process, request("crash"))
    assert outcome.rc is None and outcome.killed_by == signal.SIGKILL
    assert not outcome.timed_out
    assert outcome.exit_message().startswith("Process exited with code null")


def test_dispatch_returns_only_after_the_child_finishes(fake_cli: FakeCliFactory) -> None:
    fake_cli("slowish", stdout="ok", sleep=0.4)
    outcome = anyio.run(run_process, request("slowish"))
    assert outcome.elapsed_s >= 0.35 and outcome.stdout == b"ok"


def test_closing_stdout_early_still_waits_for_exit(fake_cli: FakeCliFactory) -> None:
    fake_cli("closer", close_stdout_early=True, sleep=0.3, exit_code=4)
    outcome = anyio.run(run_process, request("closer"))
    assert outcome.rc == 4 and outcome.elapsed_s >= 0.25 and outcome.stdout == b""


def test_on_spawn_receives_the_pid(fake_cli: FakeCliFactory) -> None:
    fake = fake_cli("tracked", stdout="ok")
    seen: list[int] = []

    async def main() -> None:
        await run_process(request("tracked"), on_spawn=seen.append)

    anyio.run(main)

    assert seen == [fake.last_call()["pid"]]


def test_on_spawn_failure_stops_the_child_and_propagates(fake_cli: FakeCliFactory) -> None:
    fake_cli("doomed", sleep=30)
    spawned: list[int] = []

    async def main() -> None:
        def on_spawn(pid: int) -> None:
            spawned.append(pid)
            raise OSError("disk full")

        await run_process(request("doomed", kill_grace_s=0.2), on_spawn=on_spawn)

    started = time.monotonic()
    with pytest.raises(OSError, match="disk full"):
        anyio.run(main)
    assert time.monotonic() - started < 3
    assert wait_until_gone(spawned[0], timeout=2)


def test_request_display_hides_env_values_and_prompt() -> None:
    req = ProcessRequest(
        argv=("codex", "exec", "--api-key", "sk-live-1", "--token=abc", "--max-tokens", "5"),
        env={**os.environ, "OPENAI_API_KEY": "sk-secret-env"},
        stdin=b"diff with ghp_secret",
        label="codex",
        timeout_s=30,
    )
    shown = req.display()
    assert repr(req) == f"ProcessRequest({shown})"
    for secret in ("sk-live-1", "abc", "sk-secret-env", "ghp_secret"):
        assert secret not in shown
    assert "OPENAI_API_KEY" in shown and "--max-tokens 5" in shown
    assert shown.startswith("[codex] codex exec --api-key '<redacted>'")


def test_request_rejects_contradictions(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="argv"):
        ProcessRequest(argv=())
    with pytest.raises(ValueError, match="timeout"):
        ProcessRequest(argv=("x",), timeout_s=0)
    with pytest.raises(ValueError, match="not both"):
        ProcessRequest(argv=("x",), stdin=b"p", prompt_file=tmp_path / "p")


def test_request_is_immutable() -> None:
    env = {"A": "1"}
    req = ProcessRequest(argv=["x", "y"], env=env)  # type: ignore[arg-type]
    env["A"] = "2"
    assert req.argv == ("x", "y") and req.env == {"A": "1"}
    with pytest.raises(AttributeError):
        req.timeout_s = 1  # type: ignore[misc]
    with pytest.raises(TypeError):
        req.env["A"] = "3"  # type: ignore[index]


def test_sync_helper_runs_a_plain_probe() -> None:
    outcome = anyio.run(run_process, ProcessRequest(argv=(sys.executable, "-c", "print('ok')")))
    assert outcome.stdout == b"ok\n" and outcome.rc == 0


def test_give_up_stops_a_child_stuck_retrying_before_its_timeout(tmp_path: Path) -> None:
    """Issue 17: a CLI that retries forever (offline codex) is stopped when ``give_up``
    says so, not at the deadline; the outcome says ``gave_up``, not ``timed_out``."""
    script = tmp_path / "stuck.sh"
    script.write_text("for i in 1 2 3; do echo 'Reconnecting... waiting for network' >&2; "
                      "done\nexec sleep 60\n")

    def give_up() -> Callable[[bytes], bool]:
        seen: list[bytes] = []

        def watch(chunk: bytes) -> bool:
            seen.append(chunk)
            return b"".join(seen).count(b"waiting for network") >= 3
        return watch

    outcome = anyio.run(run_process, request("sh", str(script), timeout_s=60, give_up=give_up()))
    assert outcome.gave_up and not outcome.timed_out and outcome.rc is None
    assert outcome.stderr_text().count("waiting for network") == 3
    settled = anyio.run(run_process, request("sh", "-c", "echo fine >&2", give_up=give_up()))
    assert not settled.gave_up and settled.rc == 0
