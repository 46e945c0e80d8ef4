"""Job-file I/O that a failing disk cannot turn into a lost verdict.

Every job file goes through :func:`write_bytes` / :func:`read_bytes` (the atomic write of
:mod:`mmr.fs` underneath). Outside a run they are exactly that: a full disk, a quota, a
read-only filesystem or a permission refusal is a :class:`~mmr.errors.StoreWriteError`.

While a review runs a job (:func:`holding`), such a write is *held* instead: the bytes
stay in memory, later reads of that file in this process see them, and the run goes on —
the channels still running finish, the verdict is built from what they replied and is
printed with its exit code. On disk the file keeps its previous whole version (the write
is atomic), so the store stays consistent, only behind. When the run ends the held files
are written once more in the order they were meant to be (space may have come back); the
first that still fails is the one-line warning that the job could not be saved.

A job file that is there but cannot be read (a directory in its place, a permission
refusal) is a :class:`~mmr.errors.StoreReadError`: one line naming the path, exit 1.
"""

from __future__ import annotations

import contextlib
import errno
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from mmr.errors import StoreReadError, StoreWriteError
from mmr.fs import (
    WRITE_FAULTS,
    atomic_write_bytes,
    dumps_json,
    encode_text,
    read_bytes_nofollow,
    remove_if_present,
)

_active: dict[Path, HeldWrites] = {}
_guard = threading.Lock()


class HeldWrites:
    """The files of one job dir that could not be written, newest bytes per path."""

    def __init__(self, job_dir: Path) -> None:
        self.job_dir = job_dir
        self.error: StoreWriteError | None = None
        #: path -> (bytes, durable); ``None`` bytes: a deletion the filesystem refused.
        self._files: dict[Path, tuple[bytes | None, bool]] = {}
        self._lock = threading.Lock()

    def keep(self, path: Path, data: bytes | None, durable: bool, exc: StoreWriteError) -> None:
        with self._lock:
            self._files.pop(path, None)  # re-inserted last: the flush keeps write order
            self._files[path] = (data, durable)
            self.error = self.error or exc

    def forget(self, path: Path) -> None:
        with self._lock:
            self._files.pop(path, None)

    def lookup(self, path: Path) -> tuple[bool, bytes | None]:
        """``(held, data)``: whether ``path`` is held, and its bytes (None: deleted)."""
        with self._lock:
            held = self._files.get(path)
        return (False, None) if held is None else (True, held[0])

    def flush(self) -> None:
        """Write the held files again, in order; stop at the first that still fails."""
        with self._lock:
            pending = list(self._files.items())
        for path, (data, durable) in pending:
            try:
                if data is None:
                    remove_if_present(path)
                else:
                    atomic_write_bytes(path, data, durable=durable)
            except OSError as exc:  # still refused, or the job dir is gone: keep the first
                if isinstance(exc, StoreWriteError):
                    self.error = exc
                elif exc.errno in WRITE_FAULTS:
                    self.error = StoreWriteError(path, exc)
                return
            self.forget(path)
        self.error = None

    def report(self, sink: Callable[[str], None], seen: set[Path]) -> None:
        """Tell ``sink`` the job could not be saved, unless the job is in ``seen`` (then add
        it)."""
        if self.error is not None:
            report_unsaved(self.job_dir, self.error, sink, seen)


def unsaved_warning(exc: StoreWriteError) -> str:
    return f"mmr: warning: the job could not be saved: {exc}"


def report_unsaved(job_dir: Path, exc: StoreWriteError, sink: Callable[[str], None],
                   seen: set[Path]) -> None:
    """:func:`unsaved_warning` to ``sink`` once per job in ``seen`` (a store's
    :attr:`~mmr.store.jobs.JobStore.reported_unsaved`: ``mmr results`` reads a job more
    than once, and one line says it all)."""
    with _guard:
        if job_dir in seen:
            return
        seen.add(job_dir)
    sink(unsaved_warning(exc))


@contextlib.contextmanager
def holding(job_dir: Path) -> Iterator[HeldWrites]:
    """Hold failed writes under ``job_dir`` for the ``with`` block; flush them at its end.

    Re-entrant: inside an active hold of the same job this is that hold, flushed by its
    outermost ``with``."""
    with _guard:
        outer = _active.get(job_dir)
        if outer is None:
            held = _active[job_dir] = HeldWrites(job_dir)
    if outer is not None:
        yield outer
        return
    try:
        yield held
    finally:
        with _guard:
            _active.pop(job_dir, None)
        held.flush()


def holder(path: Path) -> HeldWrites | None:
    """The active hold of the job ``path`` belongs to (the job dir or a file up to three
    levels below it), if any."""
    if not _active:
        return None
    for candidate in (path, *path.parents[:3]):
        held = _active.get(candidate)
        if held is not None:
            return held
    return None


def write_bytes(path: Path, data: bytes, *, durable: bool = True) -> None:
    """Atomically replace ``path``; a write fault raises unless the job is being held."""
    held = holder(path)
    try:
        atomic_write_bytes(path, data, durable=durable)
    except StoreWriteError as exc:
        if held is None:
            raise
        held.keep(path, data, durable, exc)
        return
    if held is not None:
        held.forget(path)


def write_text(path: Path, text: str, *, durable: bool = True) -> None:
    write_bytes(path, encode_text(text), durable=durable)


def write_json(path: Path, value: Any, *, durable: bool = True) -> None:
    write_bytes(path, dumps_json(value), durable=durable)


def read_bytes(path: Path) -> bytes:
    """The file's bytes as this run last wrote them (held or on disk), never through a
    symlink; ``FileNotFoundError`` when it is missing, :class:`~mmr.errors.StoreReadError`
    when it is there but unreadable."""
    held = holder(path)
    if held is not None:
        kept, data = held.lookup(path)
        if kept:
            if data is None:
                raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), str(path))
            return data
    try:
        return read_bytes_nofollow(path)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise StoreReadError(path, exc) from None


def read_text(path: Path) -> str:
    return read_bytes(path).decode("utf-8", "surrogateescape")


def read_text_if_present(path: Path) -> str | None:
    try:
        return read_text(path)
    except FileNotFoundError:
        return None


def append_line(path: Path, line: str) -> None:
    """Append ``line`` to a text file, atomically (the file is small: logs, diagnostics)."""
    existing = read_text_if_present(path) or ""
    separator = "" if not existing or existing.endswith("\n") else "\n"
    write_text(path, f"{existing}{separator}{line}\n", durable=False)


def remove(path: Path) -> None:
    """Delete ``path`` and any held version of it; a missing file is fine. A filesystem
    refusing the unlink is a :class:`~mmr.errors.StoreWriteError`, outside a hold."""
    held = holder(path)
    try:
        remove_if_present(path)
    except OSError as exc:
        if exc.errno not in WRITE_FAULTS:
            raise
        if held is None:
            raise StoreWriteError(path, exc) from exc
        held.keep(path, None, False, StoreWriteError(path, exc))
        return
    if held is not None:
        held.forget(path)


def holds(path: Path) -> bool:
    """True while ``path``'s job is being held (its lock may then live in memory only)."""
    return holder(path) is not None
