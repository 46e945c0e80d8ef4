"""The install + auth pre-flight of a channel.

``check_channel`` answers "can this channel run right now?" with an :class:`AuthResult`:

- a subprocess channel needs a ``command`` whose first token is installed, then its
  optional ``auth.check`` (run by ``sh -c`` with stdin on the null device, its output in files,
  under the channel's env and neutral posture) must not exit with one of the
  ``failure_exit_codes``; a timed-out check is tried exactly once more;
- an http channel is probed over the wire (:mod:`mmr.dispatch.http_probe`); an
  unset or empty ``api_key_env`` fails before any request is sent.

The check's output goes to files in a private directory, never to mmr's own streams; when
it fails, its last line (stdout first, cleaned, cut and redacted) follows the configured
``recovery`` (redacted), so the user sees the CLI's own reason (MMR 4.0.1 never
reads it). ``auth_status_to_channel_status`` and ``gate_update`` map a
result onto the job's status file.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

import anyio

from mmr.config.channel_schema import (
    HttpChannel,
    ReplayChannel,
    SubprocessAuth,
    SubprocessChannel,
)
from mmr.config.loaded import Channel
from mmr.config.paths import find_project_root
from mmr.dispatch.failure_reason import last_said
from mmr.dispatch.http_probe import probe_http_channel
from mmr.dispatch.interrupts import run_until_interrupted
from mmr.dispatch.isolation import NEUTRAL_CWD, open_posture
from mmr.dispatch.placeholders import executable_path, split_command
from mmr.dispatch.plan import AuthResult
from mmr.dispatch.replay import check_replay
from mmr.models import ChannelStatus
from mmr.process.subprocess import ProcessRequest, run_process
from mmr.secrets.redact import redact_text

#: The install check's character rule for a bare command name.
_SAFE_TOKEN = re.compile(r"[a-zA-Z0-9._-]+")
#: Where the check's output goes: files, not pipes, so a daemon it starts cannot hold
#: mmr's pipe open, and nothing reaches mmr's own streams.
_OUTPUT_DIR_VAR = "MMR_AUTH_CHECK_OUTPUT"
_SILENCE = f'exec </dev/null >"${_OUTPUT_DIR_VAR}/stdout" 2>"${_OUTPUT_DIR_VAR}/stderr"\n'
_NO_TMP_RECOVERY = "Free space in the temporary directory (or point TMPDIR at one with room)"
#: Where it goes when no directory can be made for it (a full TMPDIR).
_DISCARD = "exec </dev/null >/dev/null 2>&1\n"
#: The most of each output file read back (its tail).
_READ_BACK_BYTES = 64 * 1024


def install_token(command: str | None) -> str:
    """The first token of ``command`` (split as dispatch splits it); ``""`` when none."""
    tokens = split_command(command or "")
    return tokens[0] if tokens else ""


def is_installed(token: str) -> bool:
    """Whether ``token`` names something runnable, without spawning anything.

    A token containing ``/`` is a path: installed when it is an executable regular file
    (relative paths count from the repository root). Otherwise it must be a plain name
    (``^[a-zA-Z0-9._-]+$``, so ``FOO=bar`` and ``a;b`` fail) found on ``PATH``.
    """
    if "/" in token:
        path = Path(executable_path(token, find_project_root()))
        return path.is_file() and os.access(path, os.X_OK)
    if _SAFE_TOKEN.fullmatch(token) is None:
        return False
    return shutil.which(token, path=os.environ.get("PATH")) is not None


def not_installed_recovery(token: str, install: str | None = None) -> str:
    """The gate's ``<token> not found on PATH``, redacted (a token may be ``KEY=secret``),
    with the channel's ``auth.install`` hint when it has one."""
    hint = f"; install it with: {install}" if install else ""
    return redact_text(f"{token} not found on PATH{hint}")


async def _run_auth_attempt(check: SubprocessAuth, channel: SubprocessChannel) -> AuthResult:
    """One ``sh -c <check>`` attempt under a fresh posture."""
    # A check never needs the repository, and a CLI started there may load its project
    # files (hooks, MCP servers): it runs from a neutral directory unless cwd says otherwise.
    try:
        posture = open_posture(channel.env, channel.cwd or NEUTRAL_CWD)
    except OSError as exc:
        return AuthResult("failed", recovery=_NO_TMP_RECOVERY,
                          detail=f"cannot create the check's private directory: {exc.strerror}")
    try:
        output: Path | None = Path(tempfile.mkdtemp(prefix="mmr-auth-"))
        silence, extra = _SILENCE, {_OUTPUT_DIR_VAR: str(output)}
    except OSError:  # a full or unwritable TMPDIR costs the check's words, not the check
        output, silence, extra = None, _DISCARD, {}
    try:
        outcome = await run_process(ProcessRequest(
            ("sh", "-c", silence + check.check), cwd=posture.cwd,
            env={**posture.env, **extra}, timeout_s=check.timeout,
            stderr="suppress", max_capture_bytes=0, kill_grace_s=0, label="auth-check",
        ))
        failed = outcome.rc is not None and outcome.rc in check.failure_exit_codes
        # Read back only for a refusal, before the directory goes: a pass says nothing.
        said = (last_said(_tail(output / "stdout"), _tail(output / "stderr"), clean=redact_text)
                if failed and output is not None else None)
    finally:
        posture.cleanup()
        if output is not None:
            shutil.rmtree(output, ignore_errors=True)
    recovery = redact_text(check.recovery)
    if outcome.timed_out:
        return AuthResult("timeout", detail=f"auth check timed out after {check.timeout:g}s "
                                            "(auth.timeout)")
    if not outcome.spawned:
        return AuthResult("failed", recovery=recovery, detail=outcome.spawn_error)
    if failed:
        if said is None:
            return AuthResult("failed", recovery=recovery, detail=f"auth check exited {outcome.rc}")
        return AuthResult("failed", recovery=f"{recovery} — the check said: {said}", detail=said)
    return AuthResult("ok")


def _tail(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            start = max(0, path.stat().st_size - _READ_BACK_BYTES)
            handle.seek(start)
            data = handle.read(_READ_BACK_BYTES)
    except OSError:
        return ""
    if start:  # the first line may be a cut one (a credential's tail without its head)
        data = data.partition(b"\n")[2]
    return data.decode("utf-8", "replace")


async def _check_subprocess(name: str, channel: SubprocessChannel) -> AuthResult:
    token = install_token(channel.command)
    if not token:
        return AuthResult("skipped", recovery=f'Channel "{name}" is missing command')
    if not is_installed(token):
        install = channel.auth.install if channel.auth is not None else None
        return AuthResult("not_installed", recovery=not_installed_recovery(token, install))
    if channel.auth is None:
        return AuthResult("ok")
    result = await _run_auth_attempt(channel.auth, channel)
    if result.status == "timeout":  # exactly one more attempt, and only for a timeout
        result = await _run_auth_attempt(channel.auth, channel)
    return result


async def check_channel_async(name: str, channel: Channel | None) -> AuthResult:
    """:func:`check_channel` for callers already inside an event loop."""
    if channel is None:
        return AuthResult("skipped", recovery=f'Channel "{name}" not found in config')
    if channel.abstract:
        return AuthResult("skipped",
                          recovery=f'Channel "{name}" is abstract and cannot run directly')
    if isinstance(channel, HttpChannel):
        return await probe_http_channel(name, channel)
    if isinstance(channel, ReplayChannel):
        return check_replay(name, channel)
    return await _check_subprocess(name, channel)


def check_channel(name: str, channel: Channel | None) -> AuthResult:
    """Install + auth check of one channel; never raises for the check's own failure.

    Each attempt gets the channel's ``auth.timeout`` (``--timeout`` is for the review, not
    the check). ``channel=None`` means the name is not in the config. Runs its own event
    loop; use :func:`check_channel_async` inside one.
    """
    return anyio.run(check_channel_async, name, channel)


async def check_channels(channels: Sequence[tuple[str, Channel | None]], *,
                         parallel: bool = True) -> dict[str, AuthResult]:
    """The review gate for many channels, keyed in the given (resolution) order.

    With ``parallel`` the checks run concurrently (MMR 4.0.1 probes one at a
    time, adding up to a minute before anything is dispatched); the results and their
    order are the same either way. A SIGINT/SIGTERM meanwhile stops every check's process
    group and exits 130/143, as during dispatch: without it SIGTERM would kill mmr
    and leave the checks, each in its own session, running.
    """
    return await run_until_interrupted(partial(_check_all, channels, parallel))


async def _check_all(channels: Sequence[tuple[str, Channel | None]],
                     parallel: bool) -> dict[str, AuthResult]:
    results: dict[str, AuthResult] = {}

    async def one(name: str, channel: Channel | None) -> None:
        results[name] = await check_channel_async(name, channel)

    if parallel:
        async with anyio.create_task_group() as group:
            for name, channel in channels:
                group.start_soon(one, name, channel)
    else:
        for name, channel in channels:
            await one(name, channel)
    return {name: results[name] for name, _ in channels}


_CHANNEL_STATUS: dict[str, ChannelStatus] = {
    "ok": "dispatched",
    "skipped": "skipped",
    "not_installed": "not_installed",
    "failed": "auth_failed",
    "timeout": "timeout",
}


def auth_status_to_channel_status(result: AuthResult) -> ChannelStatus:
    """The job status a gate result leaves the channel in; ``ok`` stays dispatched."""
    if result.channel_status is not None:
        return result.channel_status
    return _CHANNEL_STATUS.get(result.status, "skipped")


def gate_update(result: AuthResult) -> dict[str, Any]:
    """The status-file fields a gate result writes: status, auth, recovery.

    Empty for ``ok``: the channel stays ``dispatched`` with ``auth: ok``.
    """
    if result.status == "ok":
        return {}
    status = auth_status_to_channel_status(result)
    update: dict[str, Any] = {"status": status, "auth": "skipped" if status == "skipped"
                              else "failed"}
    if result.recovery is not None and result.status != "timeout":
        update["recovery"] = result.recovery
    if result.detail and (result.channel_status is not None or result.status == "timeout"):
        update["error"] = redact_text(result.detail)  # why it failed, for the report
    return update
