"""The two locks of the job store.

``mkdir_lock`` — short read-modify-write sections (``job.json``, status files). A
directory created with ``mkdir`` is the lock, as in MMR 4.0.1's session store,
so it behaves the same on every filesystem and needs no open descriptor. A holder that
died leaves the directory behind; it is treated as stale after ``stale_after`` seconds
(the sections it guards last milliseconds) and removed, so a crash costs at most one
wait, never a wedged job.

``WorkerLock`` — "is anyone still dispatching this job?". The dispatching process holds
an exclusive ``fcntl.flock`` on ``<job>/worker.lock`` for as long as any channel may
still change. A flock is the most robust liveness signal available here:

* the kernel drops it the instant the last descriptor closes, whatever ended the
  process (SIGKILL, a crash, a reboot), so there is no pid-reuse or clock question as
  with a pid file plus process start time;
* it belongs to the open file, so a foreground can hand the locked descriptor to a
  detached worker (``pass_fds``) and exit without a moment in which the job is unlocked;
* a second ``open`` + ``flock`` conflicts even inside the holding process, so the
  dispatcher itself never mistakes its own job for an abandoned one.

The lock file is created under a temp name, locked, and only then linked into place,
so no reader can ever find ``worker.lock`` unlocked while its creator is alive.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import shutil
import tempfile
import threading
import time
import weakref
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType

from mmr.errors import MmrError
from mmr.fs import WRITE_FAULTS

_POLL_SECONDS = 0.025

#: One in-process lock per lock directory. Threads of one process (the channels of a
#: dispatch all write their status at the same moments) queue on it and are woken the
#: instant the holder leaves, instead of each polling the directory every 25 ms: eight
#: channels settling together would otherwise serialise on those sleeps. The directory
#: stays the lock between processes.
_process_locks: weakref.WeakValueDictionary[str, threading.Lock] = weakref.WeakValueDictionary()
_process_locks_guard = threading.Lock()


class LockTimeoutError(MmrError):
    """A lock directory stayed held by a live process for longer than the wait budget."""


def _timeout_error(path: Path) -> LockTimeoutError:
    return LockTimeoutError(
        f"Timed out waiting for lock {path}; if no mmr process is running, "
        "remove that directory and retry"
    )


def _process_lock(path: Path) -> threading.Lock:
    key = str(path.absolute())
    with _process_locks_guard:
        lock = _process_locks.get(key)
        if lock is None:
            lock = _process_locks[key] = threading.Lock()
        return lock


@contextlib.contextmanager
def mkdir_lock(path: Path, *, stale_after: float, timeout: float,
               in_process_if_unwritable: bool = False) -> Iterator[None]:
    """Hold the directory lock ``path`` for the duration of the ``with`` block.

    Threads of this process wait their turn on an in-process lock first; the directory
    is then polled every 25 ms while another process holds it. Raises
    :class:`LockTimeoutError` after ``timeout`` seconds in all, and ``FileNotFoundError``
    when the parent directory has gone (e.g. the job was pruned).
    ``in_process_if_unwritable``: a directory that cannot be created because the
    filesystem refuses writes (:data:`mmr.fs.WRITE_FAULTS`) leaves the in-process lock
    alone in charge: no other process can change those files either.
    """
    deadline = time.monotonic() + timeout
    local = _process_lock(path)
    if not local.acquire(timeout=max(0.0, timeout)):
        raise _timeout_error(path)
    try:
        try:
            _claim_directory(path, stale_after, deadline)
        except OSError as exc:
            if not (in_process_if_unwritable and exc.errno in WRITE_FAULTS):
                raise
            yield
            return
        try:
            yield
        finally:
            with contextlib.suppress(FileNotFoundError):
                path.rmdir()
    finally:
        local.release()


def _claim_directory(path: Path, stale_after: float, deadline: float) -> None:
    while True:
        try:
            path.mkdir(mode=0o700)
            return
        except FileExistsError:
            if _remove_if_stale(path, stale_after):
                continue
            if time.monotonic() >= deadline:
                raise _timeout_error(path) from None
            time.sleep(_POLL_SECONDS)


def _remove_if_stale(path: Path, stale_after: float) -> bool:
    """Remove a lock directory older than ``stale_after``; True when it is gone now."""
    try:
        age = time.time() - path.stat().st_mtime
    except FileNotFoundError:
        return True
    if age <= stale_after:
        return False
    # Rename first: of several waiters that all judged it stale, exactly one wins the
    # rename; the rest find it missing and go back to racing for mkdir.
    tomb = path.with_name(f"{path.name}.stale-{os.getpid()}-{secrets.token_hex(4)}")
    try:
        path.rename(tomb)
    except FileNotFoundError:
        return True
    shutil.rmtree(tomb, ignore_errors=True)
    return True


class WorkerLockHeldError(MmrError):
    """``worker.lock`` already exists: the job has (or had) a dispatcher."""


class WorkerLock:
    """An exclusive flock on a job's ``worker.lock``, held through an open descriptor."""

    def __init__(self, fd: int) -> None:
        self._fd: int | None = fd

    @classmethod
    def create(cls, path: Path) -> WorkerLock:
        """Create ``path`` already locked; :class:`WorkerLockHeldError` if it exists."""
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            try:
                os.link(tmp_name, path)
            except FileExistsError:
                raise WorkerLockHeldError(f"{path} already exists") from None
        except BaseException:
            os.close(fd)
            raise
        finally:
            Path(tmp_name).unlink()
        return cls(fd)

    @classmethod
    def adopt(cls, fd: int) -> WorkerLock:
        """Wrap a locked descriptor inherited from the foreground (``pass_fds``)."""
        os.fstat(fd)  # fail here, not later, if the descriptor was not passed
        return cls(fd)

    @classmethod
    def try_acquire(cls, path: Path) -> WorkerLock | None:
        """Lock an existing ``worker.lock`` without waiting; None while someone holds it.

        Raises ``FileNotFoundError`` when there is no lock file.
        """
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        except BaseException:
            os.close(fd)
            raise
        return cls(fd)

    def fileno(self) -> int:
        """The locked descriptor (pass it to the worker with ``pass_fds``)."""
        if self._fd is None:
            raise ValueError("worker lock already released")
        return self._fd

    def release(self) -> None:
        """Close this descriptor; the lock ends once no process holds a copy of it."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> WorkerLock:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.release()


def worker_lock_held(path: Path) -> bool | None:
    """True while someone holds ``path``, False once nobody does, None without the file."""
    try:
        lock = WorkerLock.try_acquire(path)
    except FileNotFoundError:
        return None
    if lock is None:
        return True
    lock.release()
    return False
