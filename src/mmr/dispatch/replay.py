"""Replay channels: the argv that serves a recorded reply, and the check that it exists.

A replay channel's process is this interpreter running :mod:`mmr.dispatch.replay_serve`
(never a shell), so a recorded reply reaches the parser through the same dispatch, stdout
capture and job files as a live reviewer's. The pre-flight check stands in for the install
and login check: a reply that is not there stops the channel before any job is created,
with the step that fixes it.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mmr.config.channel_schema import ReplayChannel
from mmr.config.paths import jobs_dir
from mmr.dispatch.plan import AuthResult
from mmr.errors import JobNotFoundError, MmrError
from mmr.store.jobs import JobStore

SERVER_MODULE = "mmr.dispatch.replay_serve"


def replay_argv(name: str, channel: ReplayChannel) -> list[str]:
    """The process that prints the recorded reply of channel ``name``."""
    source = channel.replay
    head = [sys.executable, "-m", SERVER_MODULE]
    if source.file is not None:
        return [*head, "file", str(Path(source.file).absolute())]
    return [*head, "job", str(jobs_dir()), source.job or "", source.channel or name]


def check_replay(name: str, channel: ReplayChannel) -> AuthResult:
    """``ok`` when the recorded reply can be served; else ``not_installed`` and the fix."""
    source = channel.replay
    if source.file is not None:
        if Path(source.file).is_file():
            return AuthResult("ok")
        return AuthResult("not_installed", recovery=(
            f'replay file "{source.file}" not found; point channels.{name}.replay.file at a '
            "recorded reply"))
    job, recorded = source.job or "", source.channel or name
    try:
        store = JobStore(jobs_dir())
        store.existing(job)
        reply = store.read_channel_output(job, recorded)
    except JobNotFoundError:
        return AuthResult("not_installed", recovery=(
            f'job "{job}" not found in {jobs_dir()}; `mmr jobs list` shows the jobs kept'))
    except MmrError as exc:
        return AuthResult("not_installed", recovery=str(exc))
    if reply is None:
        return AuthResult("not_installed", recovery=(
            f'job "{job}" has no stored reply of channel "{recorded}"; '
            f"`mmr status {job}` lists its channels"))
    return AuthResult("ok")
