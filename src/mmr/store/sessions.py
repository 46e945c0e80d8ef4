"""Review sessions: ``<sessions dir>/<id>.json`` plus ``index.json``.

The files, lock names and timings are MMR 4.0.1's, so mmr and MMR 4.0.1 can
share one ``~/.mmr/sessions``: each record is ``{session_id, created_at, jobs, rounds}``
(2-space JSON), ``index.json`` maps every id to the same record, and mutations hold the
``mkdir`` locks ``<id>.session-lock.lock`` (per session) then ``index.json.lock`` (5 s
stale, 25 ms polling, 5 s budget). What mmr does better: the index is read and checked
*before* anything is written, so a corrupt index fails the operation with nothing
changed; a session file appears complete or not at all (link, not create-then-write);
and ``rounds`` stays an integer because rounds are validated integers.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import secrets
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from mmr.errors import MmrError
from mmr.fs import atomic_write_json, ensure_private_dir, read_bytes_nofollow
from mmr.store.locking import mkdir_lock
from mmr.store.records import iso_timestamp, parse_timestamp
from mmr.store.rounds import check_round
from mmr.store.session_ids import check_session_id, is_valid_session_id, printable

INDEX_NAME = "index.json"
LOCK_STALE_SECONDS = 5.0
LOCK_TIMEOUT_SECONDS = 5.0


class SessionError(MmrError):
    """A session operation failed (exit 1); the message names the session or file."""


class SessionNotFoundError(SessionError):
    """``Session not found: <id>``."""


class SessionExistsError(SessionError):
    """``Session already exists: <id>``."""


class CorruptSessionIndexError(SessionError):
    """``index.json`` is not a JSON object; it is left exactly as found."""


class SessionLinkError(SessionError):
    """``Failed to link job <job> to session <id>: <reason>`` (review exits 1)."""


class SessionRecord(BaseModel):
    """One session. Unknown keys are kept, so a rewrite never drops another tool's field."""

    model_config = ConfigDict(extra="allow", strict=True)

    session_id: str
    created_at: str
    jobs: list[str]
    # MMR 4.0.1 accepts fractional rounds, so a record it wrote may hold 2.5.
    rounds: int | float

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


def _new_record(session_id: str, now: datetime | None) -> SessionRecord:
    return SessionRecord(session_id=session_id, created_at=iso_timestamp(now), jobs=[], rounds=0)


class SessionStore:
    """Sessions under ``root`` (``mmr.config.paths.sessions_dir()`` in production)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.index_path = root / INDEX_NAME

    def session_path(self, session_id: str) -> Path:
        """``<root>/<id>.json``; :class:`InvalidSessionIdError` before any path is built."""
        return self.root / f"{check_session_id(session_id)}.json"

    # -- commands ----------------------------------------------------------------------

    def start(self, session_id: str, *, now: datetime | None = None) -> SessionRecord:
        """Create a new, empty session; :class:`SessionExistsError` if it exists already."""
        path = self.session_path(session_id)
        record = _new_record(session_id, now)
        with self._session_lock(session_id), self._index_lock():
            index = self._read_index()
            _create_exclusive(path, record.to_json_dict(), session_id)
            index[session_id] = record.to_json_dict()
            atomic_write_json(self.index_path, index)
        return record

    def show(self, session_id: str) -> SessionRecord:
        """The record in ``<id>.json``; not found also for an invalid id or a malformed file."""
        if not is_valid_session_id(session_id):
            raise SessionNotFoundError(f"Session not found: {printable(session_id)}")
        record = self._read_record(self.session_path(session_id), tolerate_malformed=True)
        if record is None:
            raise SessionNotFoundError(f"Session not found: {session_id}")
        return record

    def list_sessions(self) -> list[SessionRecord]:
        """Every index entry, newest ``created_at`` first; reads only the index."""
        records: list[SessionRecord] = []
        for value in self._read_index().values():
            with contextlib.suppress(ValidationError):
                records.append(SessionRecord.model_validate(value))
        oldest = datetime.min.replace(tzinfo=UTC)
        records.sort(key=lambda r: parse_timestamp(r.created_at) or oldest, reverse=True)
        return records

    def end(self, session_id: str) -> None:
        """Delete the session file and its index entry; not found only when neither existed."""
        path = self.session_path(session_id)
        with self._session_lock(session_id), self._index_lock():
            index = self._read_index()
            existed = _unlink(path)
            indexed = session_id in index
            if indexed:
                del index[session_id]
                atomic_write_json(self.index_path, index)
        if not (existed or indexed):
            raise SessionNotFoundError(f"Session not found: {session_id}")

    def add_job(self, session_id: str, job_id: str, round: int = 1, *,
                now: datetime | None = None) -> SessionRecord:
        """Append ``job_id`` to the session (created if absent); ``rounds`` = max round seen."""
        path = self.session_path(session_id)
        round = check_round(round)
        with self._session_lock(session_id), self._index_lock():
            index = self._read_index()
            record = self._read_record(path, tolerate_malformed=False)
            record = record or _new_record(session_id, now)
            record.jobs.append(job_id)
            record.rounds = max(record.rounds, round)
            atomic_write_json(path, record.to_json_dict())
            index[session_id] = record.to_json_dict()
            atomic_write_json(self.index_path, index)
        return record

    # -- files and locks ---------------------------------------------------------------

    @contextlib.contextmanager
    def _session_lock(self, session_id: str) -> Iterator[None]:
        ensure_private_dir(self.root)
        lock = self.root / f"{check_session_id(session_id)}.session-lock.lock"
        with mkdir_lock(lock, stale_after=LOCK_STALE_SECONDS, timeout=LOCK_TIMEOUT_SECONDS):
            yield

    def _index_lock(self) -> contextlib.AbstractContextManager[None]:
        lock = self.root / f"{INDEX_NAME}.lock"
        return mkdir_lock(lock, stale_after=LOCK_STALE_SECONDS, timeout=LOCK_TIMEOUT_SECONDS)

    def _read_index(self) -> dict[str, Any]:
        try:
            raw = json.loads(read_bytes_nofollow(self.index_path))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            raise CorruptSessionIndexError(
                f"Session index {self.index_path} is unreadable ({exc}); fix or remove it"
            ) from None
        if not isinstance(raw, dict):
            raise CorruptSessionIndexError(
                f"Session index {self.index_path} is not a JSON object; fix or remove it"
            )
        return raw

    def _read_record(self, path: Path, *, tolerate_malformed: bool) -> SessionRecord | None:
        try:
            data = read_bytes_nofollow(path)
        except FileNotFoundError:
            return None
        except OSError as exc:
            if tolerate_malformed and exc.errno == errno.ELOOP:
                return None  # a symlink in place of a session file reads as absent
            raise SessionError(f"Cannot read session file {path}: {exc.strerror}") from None
        try:
            return SessionRecord.model_validate(json.loads(data))
        except (ValueError, ValidationError):
            if tolerate_malformed:
                return None
            raise SessionError(f"Session file {path} is malformed; fix or remove it") from None


def _create_exclusive(path: Path, value: dict[str, Any], session_id: str) -> None:
    """Write ``path`` only if it does not exist; readers never see a partial file."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.{int(time.time() * 1000)}."
                         f"{secrets.token_hex(3)}.tmp")
    atomic_write_json(tmp, value)
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise SessionExistsError(f"Session already exists: {session_id}") from None
    finally:
        tmp.unlink()


def _unlink(path: Path) -> bool:
    try:
        path.unlink()
    except FileNotFoundError:
        return False
    return True


def link_review_job(store: SessionStore, session_id: str, job_id: str, round: int | None, *,
                    discard_job: Callable[[str], None]) -> SessionRecord:
    """Link a freshly created review job to its session.

    On failure ``discard_job(job_id)`` runs first (the review deletes the job it just
    created), then :class:`SessionLinkError` carries MMR 4.0.1's message.
    """
    try:
        return store.add_job(session_id, job_id, 1 if round is None else round)
    except (MmrError, OSError) as exc:
        discard_job(job_id)
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise SessionLinkError(
            f"Failed to link job {job_id} to session {printable(session_id)}: {reason}"
        ) from exc
