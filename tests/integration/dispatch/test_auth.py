"""Install and auth checks: real ``sh`` checks, fake CLIs on PATH."""

from __future__ import annotations

import errno
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from mmr.config.channel_schema import HttpChannel
from mmr.dispatch.auth import (
    auth_status_to_channel_status,
    check_channel,
    check_channels,
    gate_update,
    is_installed,
)
from mmr.dispatch.plan import AuthResult
from tests.fakes.plugin import FakeCliFactory
from tests.integration.dispatch.dispatch_helpers import channel


def _auth(check: str, codes: list[int] | None = None, timeout: float = 5,
          recovery: str = "mycli login") -> dict[str, Any]:
    return {"check": check, "failure_exit_codes": codes or [1], "timeout": timeout,
            "recovery": recovery}


def test_is_installed(tmp_path: Path) -> None:
    script = tmp_path / "tool"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    plain = tmp_path / "plain"
    plain.write_text("")
    assert is_installed("sh")
    assert not is_installed("no-such-cli-anywhere")
    assert not is_installed("node; rm -rf /")
    assert not is_installed("FOO=bar")
    assert is_installed(str(script))  # Q1: a path is checked directly
    assert not is_installed(str(plain))  # not executable
    assert not is_installed(str(tmp_path))  # a directory


def test_missing_cli_is_not_installed() -> None:
    result = check_channel("ghost", channel("ghost-cli-xyz -p", auth=_auth("true")))

    assert result == AuthResult("not_installed", recovery="ghost-cli-xyz not found on PATH")
    assert auth_status_to_channel_status(result) == "not_installed"
    assert gate_update(result) == {"status": "not_installed", "auth": "failed",
                                   "recovery": "ghost-cli-xyz not found on PATH"}


def test_secret_shaped_token_is_redacted_in_the_recovery() -> None:
    result = check_channel("x", channel("OPENAI_API_KEY=sk-123 mycli"))

    assert result.status == "not_installed" and result.recovery == "<redacted>"


def test_absolute_path_command_is_installed(fake_cli: FakeCliFactory) -> None:
    fake = fake_cli("pathcli")
    assert check_channel("p", channel(f"{fake.path} --flag")).status == "ok"


def test_no_auth_block_is_ok_without_spawning(fake_cli: FakeCliFactory) -> None:
    fake = fake_cli("codex")
    assert check_channel("codex", channel("codex")) == AuthResult("ok")
    assert fake.calls() == []


@pytest.mark.parametrize(("check", "codes", "status"), [
    ("true", [1], "ok"),
    ("exit 1", [1], "failed"),
    ("exit 7", [1], "ok"),  # an unknown code is not an auth problem
    ("exit 41", [41], "failed"),
    ("kill -9 $$", [1], "ok"),  # a signal we did not send
])
def test_auth_check_exit_codes(fake_cli: FakeCliFactory, check: str, codes: list[int],
                               status: str) -> None:
    fake_cli("mycli")
    result = check_channel("mycli", channel("mycli", auth=_auth(check, codes)))

    assert result.status == status
    assert result.recovery == ("mycli login" if status == "failed" else None)
    if status == "failed":
        assert auth_status_to_channel_status(result) == "auth_failed"
        assert gate_update(result) == {"status": "auth_failed", "auth": "failed",
                                       "recovery": "mycli login"}


def test_timeout_is_retried_once(fake_cli: FakeCliFactory) -> None:
    fake_cli("mycli")
    started = time.monotonic()

    result = check_channel("mycli", channel("mycli", auth=_auth("sleep 10", timeout=1)))

    elapsed = time.monotonic() - started
    assert result.status == "timeout" and result.recovery is None
    assert 1.8 <= elapsed < 4
    assert auth_status_to_channel_status(result) == "timeout"
    assert gate_update(result) == {"status": "timeout", "auth": "failed",
                                   "error": "auth check timed out after 1s (auth.timeout)"}


def test_check_output_reaches_only_the_recovery(fake_cli: FakeCliFactory,
                                                capfd: pytest.CaptureFixture[str]) -> None:
    """Issue 17 (was: the output never surfaces): a failed check's last stdout line, without
    colour codes, follows the recovery; nothing reaches mmr's own streams."""
    fake_cli("mycli")
    result = check_channel("mycli", channel(
        "mycli", auth=_auth("echo banner; printf '\\033[31mNot logged in\\033[0m\\n'; "
                            "echo leak-err >&2; exit 1", recovery="mycli login")))

    captured = capfd.readouterr()
    assert "logged" not in captured.out + captured.err and "leak" not in captured.err
    assert result.recovery == "mycli login — the check said: Not logged in"
    assert "leak" not in repr(result)


def test_check_stderr_is_the_reason_when_stdout_is_empty_and_secrets_are_redacted(
        fake_cli: FakeCliFactory) -> None:
    fake_cli("mycli")
    stderr_only = check_channel("mycli", channel("mycli", auth=_auth(
        "echo 'error: no session' >&2; exit 1", recovery="mycli login")))
    secret = check_channel("mycli", channel("mycli", auth=_auth(
        "echo 'bad token sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789'; exit 1",
        recovery="mycli login")))
    passed = check_channel("mycli", channel("mycli", auth=_auth("echo fine")))

    assert stderr_only.recovery == "mycli login — the check said: error: no session"
    assert secret.recovery is not None and "abcdefghij" not in secret.recovery
    assert passed == AuthResult("ok")


def test_recovery_with_a_secret_is_redacted(fake_cli: FakeCliFactory) -> None:
    fake_cli("mycli")
    result = check_channel("mycli", channel(
        "mycli", auth=_auth("exit 1", recovery="mycli relogin --token sk-abc")))

    assert result == AuthResult("failed", recovery="<redacted>", detail=result.detail)


def test_check_runs_with_channel_env_and_neutral_home(fake_cli: FakeCliFactory) -> None:
    fake_cli("mycli")
    chan = channel("mycli", env={"HOME": "{{neutral_home}}", "PROBE": "yes"},
                   auth=_auth('case "$HOME" in *mmr-grok-*) [ "$PROBE" = yes ] || exit 1;; '
                              "*) exit 1;; esac"))

    assert check_channel("mycli", chan).status == "ok"


def test_missing_abstract_and_commandless_channels_are_skipped() -> None:
    abstract = channel("x", abstract=True)
    commandless = channel("x").model_copy(update={"command": None})

    assert check_channel("gone", None) == AuthResult(
        "skipped", recovery='Channel "gone" not found in config')
    assert check_channel("tpl", abstract).recovery == (
        'Channel "tpl" is abstract and cannot run directly')
    result = check_channel("bare", commandless)
    assert result == AuthResult("skipped", recovery='Channel "bare" is missing command')
    assert gate_update(result) == {"status": "skipped", "auth": "skipped",
                                   "recovery": 'Channel "bare" is missing command'}
    assert gate_update(AuthResult("ok")) == {}


def _http(**fields: Any) -> HttpChannel:
    return HttpChannel.model_validate({
        "kind": "http", "endpoint": "http://127.0.0.1:9/v1/chat/completions", "model": "m",
        "endpoint_convention": "openai-chat", **fields,
    })


def test_http_channel_needs_its_key_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MY_API_KEY", raising=False)
    chan = _http(api_key_env="MY_API_KEY", auth={"recovery": "export MY_API_KEY"})

    unset = check_channel("api", chan)
    monkeypatch.setenv("MY_API_KEY", "sk-secret-value")
    present = check_channel("api", chan)

    assert unset.status == "failed" and unset.recovery == "export MY_API_KEY"
    # With the key set, the probe goes over the wire: nothing listens on
    # port 9, so the channel is not ok, and the key appears nowhere in the result.
    assert present.status != "ok"
    assert "sk-secret-value" not in repr(present)


def test_check_channels_keeps_resolution_order(fake_cli: FakeCliFactory) -> None:
    fake_cli("mycli")
    slow = channel("mycli", auth=_auth("sleep 0.6"))
    quick = channel("mycli", auth=_auth("exit 1"))
    items = [("slow-a", slow), ("quick", quick), ("slow-b", slow), ("gone", None)]
    started = time.monotonic()

    results = anyio.run(lambda: check_channels(items, parallel=True))

    assert time.monotonic() - started < 1.1  # the two slow checks overlapped
    assert list(results) == ["slow-a", "quick", "slow-b", "gone"]
    assert [r.status for r in results.values()] == ["ok", "failed", "ok", "skipped"]
    sequential = anyio.run(lambda: check_channels(items, parallel=False))
    assert sequential == results


def test_a_credential_across_the_cut_is_redacted_whole(fake_cli: FakeCliFactory) -> None:
    """The line is redacted before it is cut to 240 characters: cut first, the key's head
    was too short for its pattern and reached the recovery hint and the status file."""
    fake_cli("mycli")
    key = "AKIA" + "ABCDEFGHIJKLMNOP"
    line = "x" * 230 + " " + key + " trailing words"
    result = check_channel("mycli", channel("mycli", auth=_auth(
        f"echo '{line}'; exit 1", recovery="mycli login")))

    assert result.status == "failed" and result.recovery is not None
    assert "AKIAABCD" not in result.recovery and "AKIAABCD" not in (result.detail or "")


def test_no_room_for_the_output_costs_the_words_not_the_check(
        fake_cli: FakeCliFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No directory for the check's output (a full TMPDIR) was a traceback out of the
    pre-flight; the check still runs and decides, only its words are not read back."""
    fake_cli("mycli")
    make = tempfile.mkdtemp

    def full_for_output(*args: Any, **kwargs: Any) -> str:
        if kwargs.get("prefix") == "mmr-auth-":
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return make(*args, **kwargs)

    monkeypatch.setattr(tempfile, "mkdtemp", full_for_output)
    refused = check_channel("mycli", channel("mycli", auth=_auth(
        "echo 'Not logged in'; exit 1", recovery="mycli login")))
    passed = check_channel("mycli", channel("mycli", auth=_auth("true")))

    assert refused == AuthResult("failed", recovery="mycli login",
                                 detail="auth check exited 1")
    assert passed == AuthResult("ok")


def test_a_full_tmpdir_fails_the_check_with_the_fix(
        fake_cli: FakeCliFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_cli("mycli")

    def full(*args: Any, **kwargs: Any) -> str:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(tempfile, "mkdtemp", full)
    result = check_channel("mycli", channel("mycli", auth=_auth("true")))

    assert result.status == "failed"
    assert result.detail == ("cannot create the check's private directory: "
                             + os.strerror(errno.ENOSPC))
    assert result.recovery is not None and "TMPDIR" in result.recovery
