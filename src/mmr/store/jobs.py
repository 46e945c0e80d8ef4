"""The job store: one directory per review under the jobs dir.

Layout and formats are MMR 4.0.1's, so either tool can read the other's jobs. What
mmr adds: every file is written atomically; ``job.json`` and status
files are read-modify-written under a per-job ``mkdir`` lock (``job.json.lock``), so
concurrent channels, compensation and ``mmr reconcile`` never lose an update; and every
reader runs the dead-worker sweep, so a job whose dispatcher died ends ``failed`` with
``reason: worker_died`` instead of looking "running" forever.

Formats are MMR 4.0.1's: ``<ch>.json`` holds the raw reply encoded as one JSON
*string* (``mmr reconcile`` stores a normalised *object* instead), ``<ch>.pid`` the
decimal pid without a newline, everything else plain text. Only ``results.json`` and
``job.json`` are also fsynced (what a crashed job is recovered from: a status, reply or
log lost to a power cut leaves the channel to be re-run or reported).

All methods are blocking file I/O of a few milliseconds; async callers run them in a
worker thread.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from mmr.errors import JobNotFoundError, MmrError, StoreReadError, StoreWriteError
from mmr.fs import (
    WRITE_FAULTS,
    atomic_write_json,
    atomic_write_text,
    dumps_json,
    encode_text,
    ensure_private_dir,
)
from mmr.log import stderr_line
from mmr.models import ChannelStatus, OutsideDiffGate, TrustMode
from mmr.secrets.credentials import redact_credentials
from mmr.store import held
from mmr.store.dead_worker import sweep_dead_worker, worker_state
from mmr.store.held import holding, write_json
from mmr.store.job_reader import read_job, read_job_json
from mmr.store.job_writer import job_lock, json_value, merge_status_file
from mmr.store.layout import JobPaths, check_channel_name, compensating_name, new_job_id
from mmr.store.locking import WorkerLock, worker_lock_held
from mmr.store.records import (
    AuthState,
    ChannelJobEntry,
    JobKind,
    JobRecord,
    ReviewControls,
    WorkerInfo,
    iso_timestamp,
    parse_timestamp,
)
from mmr.vocabulary import EXIT_NOT_FOUND, ReconcileRule, Severity

_DAY_MS = 86_400_000


class ChannelExistsError(MmrError):
    """A channel of that name is already part of the job (exit 5, as for `reconcile`)."""

    exit_code = EXIT_NOT_FOUND


class JobStoreUnavailableError(MmrError):
    """The jobs directory cannot be created or written (exit 1, before anything runs)."""


def unavailable(root: Path, exc: OSError) -> JobStoreUnavailableError:
    """The one-line error for an unusable jobs dir: which path, why, and the fix."""
    detail = f"{exc.filename or root}: {exc.strerror}" if exc.strerror else str(exc)
    return JobStoreUnavailableError(
        f"cannot use the job store: {detail}. Point MMR_HOME at a writable directory "
        "(default ~/.mmr)")


class JobStore:
    """Jobs under ``root`` (``mmr.config.paths.jobs_dir()`` in production).

    Opening the store creates ``root`` (even ``mmr status`` does); a root that
    cannot be created is a :class:`JobStoreUnavailableError`, not a crash.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        #: Jobs whose "could not be saved" warning this store already gave.
        self.reported_unsaved: set[Path] = set()
        try:
            ensure_private_dir(root)
        except OSError as exc:
            raise unavailable(root, exc) from exc

    # -- locations ---------------------------------------------------------------------

    def paths(self, job_id: str) -> JobPaths:
        """The job's file layout; :class:`JobNotFoundError` for an id that is not a plain entry."""
        return JobPaths.for_job(self.root, job_id)

    def existing(self, job_id: str) -> JobPaths:
        """:meth:`paths` for a job directory that exists (and is not a symlink)."""
        paths = self.paths(job_id)
        if paths.root.is_symlink() or not paths.root.is_dir():
            raise JobNotFoundError(f"Job not found: {job_id}")
        return paths

    # -- creating ----------------------------------------------------------------------

    def create_job(
        self,
        channels: Iterable[str],
        *,
        fix_threshold: Severity,
        format: str | None,
        min_completed_channels: int,
        kind: JobKind = "review",
        session_id: str | None = None,
        round: int | None = None,
        review_controls: ReviewControls | None = None,
        trust_mode: TrustMode | None = None,
        proposed_acks: list[str] | None = None,
        proposed_config_change: bool | None = None,
        project_root: Path | str | None = None,
        created_at: datetime | None = None,
        outside_diff_findings: OutsideDiffGate | None = None,
        excluded_files: list[str] | None = None,
        wait_budget_s: float | None = None,
        reconcile: ReconcileRule | None = None,
        voices: dict[str, str] | None = None,
    ) -> JobRecord:
        """Create ``<root>/mmr-<12 hex>/`` with every channel ``dispatched``, ``auth: ok``.

        The directory is claimed with an exclusive ``mkdir``, so two reviews started at
        the same moment can never share an id.
        """
        entries = {check_channel_name(name): ChannelJobEntry(status="dispatched")
                   for name in channels}
        record = JobRecord(
            job_id="pending", fix_threshold=fix_threshold, format=format,
            created_at=iso_timestamp(created_at), channels=entries,
            min_completed_channels=min_completed_channels, session_id=session_id, round=round,
            review_controls=review_controls, trust_mode=trust_mode, proposed_acks=proposed_acks,
            proposed_config_change=proposed_config_change, kind=kind,
            project_root=None if project_root is None else str(project_root),
            outside_diff_findings=outside_diff_findings, excluded_files=excluded_files or None,
            wait_budget_s=wait_budget_s, reconcile=reconcile, voices=voices,
        )
        try:
            paths = self._claim_job_dir()
            record.job_id = paths.root.name
            ensure_private_dir(paths.channels_dir)
            atomic_write_json(paths.job_json, _disk_form(record))
        except OSError as exc:  # read-only or full disk: say so before anything is dispatched
            raise unavailable(self.root, exc) from exc
        return record

    def _claim_job_dir(self) -> JobPaths:
        for _ in range(100):
            paths = self.paths(new_job_id())
            try:
                paths.root.mkdir(mode=0o700)
            except FileExistsError:
                continue
            return paths
        raise MmrError(f"Could not create a new job directory in {self.root}")

    def delete_job(self, job_id: str) -> None:
        """Remove the job directory (e.g. when linking it to a session failed)."""
        shutil.rmtree(self.existing(job_id).root)

    # -- reading -----------------------------------------------------------------------

    def load(self, job_id: str, *, sweep: bool = True) -> JobRecord:
        """The job with status files merged and its status derived; sweeps a dead worker.

        Raises :class:`JobNotFoundError` (``Job not found: <id>``, exit 5) for any id or
        directory that does not hold a usable job.
        """
        paths = self.existing(job_id)
        record = read_job(paths)
        if sweep and record.running_channels:
            # A full or read-only store cannot take the sweep's writes: the job still reads
            # as swept (held in memory), with one warning that it could not be saved.
            with holding(paths.root) as held:
                if sweep_dead_worker(paths):
                    record = read_job(paths)
            held.report(stderr_line, self.reported_unsaved)
        record.worker_state = worker_state(paths, record)
        return record

    def list_jobs(self) -> list[JobRecord]:
        """Every loadable ``mmr-*`` job, newest ``created_at`` first."""
        jobs: list[JobRecord] = []
        for name in self._job_dir_names():
            try:
                jobs.append(self.load(name))
            except JobNotFoundError:
                pass
            except StoreReadError as exc:  # one unreadable job does not hide the others
                stderr_line(f"mmr: warning: {exc}")
        oldest = datetime.min.replace(tzinfo=UTC)
        jobs.sort(key=lambda job: parse_timestamp(job.created_at) or oldest, reverse=True)
        return jobs

    def prune(self, retention_days: float, now: datetime) -> list[str]:
        """Delete jobs created before ``now - retention_days``; return their ids.

        Also removes ``mmr-*`` directories without a loadable ``job.json`` (a crash while
        creating, an MMR 4.0.1 job it could not finish) once their mtime is that old.
        A job whose worker still holds ``worker.lock`` is never removed. A filesystem that
        refuses the removal (read-only, permission) is a :class:`StoreWriteError`.
        """
        if retention_days < 0:
            raise ValueError(f"retention must be >= 0 days (got {retention_days})")
        cutoff = now - timedelta(milliseconds=retention_days * _DAY_MS)
        pruned: list[str] = []
        for name in self._job_dir_names():
            paths = self.paths(name)
            try:
                created = _created_at(paths)
                if created < cutoff and worker_lock_held(paths.worker_lock) is not True:
                    shutil.rmtree(paths.root)
                    pruned.append(name)
            except FileNotFoundError:
                continue  # removed by someone else meanwhile
            except OSError as exc:
                if exc.errno in WRITE_FAULTS:
                    raise StoreWriteError(paths.root, exc) from exc
                raise
        return pruned

    def _job_dir_names(self) -> list[str]:
        with os.scandir(self.root) as entries:
            return sorted(
                entry.name for entry in entries
                if entry.name.startswith("mmr-") and entry.is_dir(follow_symlinks=False)
            )

    # -- writing -----------------------------------------------------------------------

    def update_channel(self, job_id: str, channel: str, **partial: Any) -> None:
        """Merge ``partial`` into ``channels/<channel>.status.json`` under the job lock.

        A value of ``None`` removes the key (a retry clears ``completed_at`` and
        ``reason``); pydantic values are stored as their JSON form. The merged entry is
        validated, so a misspelt status never reaches the disk.
        """
        paths = self.existing(job_id)
        check_channel_name(channel)
        with job_lock(paths):
            merge_status_file(paths, channel, partial)

    def register_channel(self, job_id: str, channel: str, entry: ChannelJobEntry) -> None:
        """Add a channel entry to ``job.json`` (compensation, ``mmr reconcile``)."""
        paths = self.existing(job_id)
        check_channel_name(channel)
        with job_lock(paths):
            raw = read_job_json(paths)
            if channel in raw["channels"]:
                raise ChannelExistsError(f"Channel '{channel}' already exists in job {job_id}")
            raw["channels"][channel] = entry.to_json_dict()
            write_json(paths.job_json, raw)

    def register_compensating_pass(self, job_id: str, original: str, *, compensator: str,
                                   output_parser: str | Mapping[str, Any] | BaseModel,
                                   status: ChannelStatus = "dispatched", auth: AuthState = "ok",
                                   recovery: str | None = None) -> str:
        """Register ``compensating-<original>`` run by ``compensator``; its name."""
        name = compensating_name(original)
        entry = ChannelJobEntry(status=status, auth=auth, recovery=recovery,
                                output_parser=json_value(output_parser), compensator=compensator)
        self.register_channel(job_id, name, entry)
        return name

    def record_worker(self, job_id: str, pid: int, started_at: datetime | None = None) -> None:
        """Write ``worker: {pid, started_at}`` into ``job.json``."""
        paths = self.existing(job_id)
        info = WorkerInfo(pid=pid, started_at=iso_timestamp(started_at))
        with job_lock(paths):
            raw = read_job_json(paths)
            raw["worker"] = info.to_json_dict()
            write_json(paths.job_json, raw)

    # -- per channel -------------------------------------------------------------------

    def write_channel_output(self, job_id: str, channel: str, text: str) -> None:
        """Save a reply as ``<ch>.json``: the text as a JSON string literal, UTF-8 kept."""
        held.write_bytes(self._write_target(job_id, channel, ".json"), dumps_json(text),
                         durable=False)

    def write_channel_output_object(
        self, job_id: str, channel: str, document: Mapping[str, Any]
    ) -> None:
        """Save a normalised ``{approved, findings, summary}`` object (``mmr reconcile``)."""
        path = self._write_target(job_id, channel, ".json")
        held.write_bytes(path, dumps_json(dict(document)), durable=False)

    def read_channel_output(self, job_id: str, channel: str) -> str | None:
        """The raw reply: the decoded string when the file holds a JSON string, else its
        text (an injected object is handed to the parser as JSON text); None if missing."""
        try:
            data = held.read_bytes(self._channel_path(job_id, channel, ".json"))
        except FileNotFoundError:
            return None
        with contextlib.suppress(ValueError):
            decoded = json.loads(data)
            if isinstance(decoded, str):
                return decoded
        return data.decode("utf-8", "surrogateescape")

    def write_log(self, job_id: str, channel: str, text: str) -> None:
        """``<ch>.log``: a CLI's own words (stderr, claude's stdout envelope), so redacted."""
        held.write_text(self._write_target(job_id, channel, ".log"),
                        redact_credentials(text)[0], durable=False)

    def read_log(self, job_id: str, channel: str) -> str | None:
        return held.read_text_if_present(self._channel_path(job_id, channel, ".log"))

    def write_pid(self, job_id: str, channel: str, pid: int) -> None:
        held.write_text(self._write_target(job_id, channel, ".pid"), str(pid), durable=False)

    def write_channel_prompt(self, job_id: str, channel: str, prompt: str) -> Path:
        """Write the channel's prompt file (exact text) and return its path.

        Never held in memory: the channel's CLI reads it from disk."""
        path = self._write_target(job_id, channel, ".prompt.txt")
        atomic_write_text(path, prompt, durable=False)
        return path

    def stdout_spool_path(self, job_id: str, channel: str) -> Path:
        """``<ch>.stdout``, where the head of a reply too large to parse is kept (its
        directory is created private)."""
        return self._write_target(job_id, channel, ".stdout")

    def write_stdout_head(self, job_id: str, channel: str, text: str) -> None:
        """``<ch>.stdout``: the head of a reply too large to parse, already redacted."""
        held.write_text(self._write_target(job_id, channel, ".stdout"), text, durable=False)

    def clear_attempt(self, job_id: str, channel: str) -> None:
        """Delete output, log, pid and spool before a retry, so nothing stale can pass a gate."""
        for suffix in (".json", ".log", ".pid", ".stdout"):
            held.remove(self._channel_path(job_id, channel, suffix))

    # -- per job -----------------------------------------------------------------------

    def write_prompt(self, job_id: str, prompt: str) -> None:
        held.write_text(self.existing(job_id).prompt, prompt, durable=False)

    def write_diff(self, job_id: str, diff: str) -> None:
        held.write_text(self.existing(job_id).diff, diff, durable=False)

    def read_diff(self, job_id: str) -> str | None:
        return held.read_text_if_present(self.existing(job_id).diff)

    def write_results(self, job_id: str, document: Mapping[str, Any]) -> None:
        """Overwrite ``results.json`` with the JSON form of the last results."""
        held.write_json(self.existing(job_id).results, dict(document))

    def write_results_text(self, job_id: str, text: str) -> None:
        """Overwrite ``results.json`` with ``text`` (already the JSON document)."""
        held.write_bytes(self.existing(job_id).results, encode_text(text))

    def worker_log_path(self, job_id: str) -> Path:
        return self.existing(job_id).worker_log

    def _channel_path(self, job_id: str, channel: str, suffix: str) -> Path:
        return self.existing(job_id).channel_file(channel, suffix)

    def _write_target(self, job_id: str, channel: str, suffix: str) -> Path:
        paths = self.existing(job_id)
        path = paths.channel_file(channel, suffix)
        ensure_private_dir(paths.channels_dir)
        return path

    # -- the worker --------------------------------------------------------------------

    def acquire_worker_lock(self, job_id: str) -> WorkerLock:
        """Create and hold ``worker.lock`` for the process that dispatches this job.

        Keep the returned lock (or pass ``lock.fileno()`` to the detached worker with
        ``pass_fds``) until every channel is terminal.
        """
        return WorkerLock.create(self.existing(job_id).worker_lock)

    def is_worker_alive(self, job_id: str) -> bool | None:
        """True while the dispatcher holds ``worker.lock``; None for jobs without one."""
        return worker_lock_held(self.existing(job_id).worker_lock)


def _disk_form(record: JobRecord) -> dict[str, Any]:
    """``job.json`` as written: the on-disk ``status`` always reads ``dispatched``."""
    return {**record.to_json_dict(), "status": "dispatched"}


def _created_at(paths: JobPaths) -> datetime:
    """``created_at`` of a loadable job, else the directory's mtime."""
    try:
        created = parse_timestamp(read_job(paths).created_at)
    except (JobNotFoundError, StoreReadError):  # unreadable: its age is the directory's
        created = None
    return created or datetime.fromtimestamp(paths.root.stat().st_mtime, UTC)
