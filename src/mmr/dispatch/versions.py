"""Which version of each reviewer CLI ran: ``<command> --version``, first line.

Reviewer CLIs change their flags and output between versions, so ``mmr doctor`` shows
each installed CLI's version and a review job records the versions that reviewed it
(``cli_versions`` in ``job.json``). A version is best-effort: an HTTP channel, a CLI that
is not installed, exits non-zero, prints nothing or takes longer than
:data:`VERSION_TIMEOUT_S` has none, and nothing here ever raises for the child.

The probe runs the install token only (never the channel's flags, never through a shell),
with stdin closed and stderr discarded; the line it keeps is redacted like recovery text.
"""

from __future__ import annotations

from collections.abc import Mapping

import anyio

from mmr.config.channel_schema import HttpChannel, ReplayChannel
from mmr.config.loaded import Channel
from mmr.dispatch import version_cache
from mmr.dispatch.auth import install_token, is_installed
from mmr.dispatch.isolation import inherited_env
from mmr.process.subprocess import ProcessRequest, run_process
from mmr.secrets.redact import redact_text
from mmr.store.held import write_json
from mmr.store.job_reader import read_job_json
from mmr.store.job_writer import job_lock
from mmr.store.jobs import JobStore

#: Generous: opencode answers `--version` in 0.5 s idle and ~3 s on a busy machine; the
#: probe runs beside the dispatch (never before it), so a slow CLI delays no review.
VERSION_TIMEOUT_S = 10.0
#: Longer lines are cut: a CLI that answers ``--version`` with its help text is not a version.
MAX_VERSION_CHARS = 200
_MAX_CAPTURE_BYTES = 16 * 1024


def version_token(channel: Channel) -> str | None:
    """The executable whose version a channel reports: its installed first token, or None."""
    if isinstance(channel, HttpChannel | ReplayChannel):  # nothing installed to ask
        return None
    token = install_token(channel.command)
    return token if token and is_installed(token) else None


async def token_version(token: str) -> str | None:
    """``<token> --version``'s first non-blank stdout line (redacted), None on any failure."""
    outcome = await run_process(ProcessRequest(
        (token, "--version"), env=inherited_env(), timeout_s=VERSION_TIMEOUT_S,
        stderr="suppress", max_capture_bytes=_MAX_CAPTURE_BYTES, kill_grace_s=0,
        label="version",
    ))
    if not outcome.succeeded:
        return None
    for line in outcome.stdout_text().splitlines():
        if line.strip():
            return redact_text(line.strip()[:MAX_VERSION_CHARS])
    return None


async def cli_versions_async(channels: Mapping[str, Channel], *,
                             cached: bool = False) -> dict[str, str]:
    """``{channel: version}`` for every channel that has one, probed concurrently.

    Channels sharing an executable (``minimax``/``minimax-m3``) run it once. The result
    keeps the order of ``channels``. ``cached`` answers from (and updates) the per-executable
    cache (:mod:`mmr.dispatch.version_cache`), so an unchanged CLI is not started again.
    """
    tokens = {name: version_token(channel) for name, channel in channels.items()}
    unique = list(dict.fromkeys(t for t in tokens.values() if t is not None))
    found: dict[str, str | None] = {}
    misses: dict[str, str] = {}
    known: dict[str, str] = {}
    if cached:
        hits, misses, known = await anyio.to_thread.run_sync(version_cache.lookup, unique)
        found.update(hits)

    async def probe(token: str) -> None:
        found[token] = await token_version(token)

    async with anyio.create_task_group() as group:
        for token in unique:
            if token not in found:
                group.start_soon(probe, token)
    fresh = {key: version for token, key in misses.items()
             if (version := found.get(token)) is not None}
    if fresh:
        await anyio.to_thread.run_sync(version_cache.save, known, fresh)
    return {name: version for name, token in tokens.items()
            if token is not None and (version := found.get(token)) is not None}


def record_cli_versions(store: JobStore, job_id: str, versions: Mapping[str, str]) -> None:
    """Merge ``versions`` into the job's ``cli_versions`` (``job.json``, under its lock)."""
    if not versions:
        return
    paths = store.existing(job_id)
    with job_lock(paths):
        raw = read_job_json(paths)
        current = raw.get("cli_versions")
        merged = dict(current) if isinstance(current, dict) else {}
        merged.update(versions)
        raw["cli_versions"] = merged
        write_json(paths.job_json, raw)


async def record_cli_versions_async(store: JobStore, job_id: str,
                                    channels: Mapping[str, Channel]) -> None:
    """Probe ``channels``' versions and record them on the job (the write in a thread).

    Meant to run beside the dispatch in its task group, so the probes add no wall time;
    cancelling it once the channels have settled simply records nothing. An executable
    probed before (same path, size, mtime, inode) is answered from the cache.
    """
    versions = await cli_versions_async(channels, cached=True)
    await anyio.to_thread.run_sync(record_cli_versions, store, job_id, versions)
