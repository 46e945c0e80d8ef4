"""The two locks of the job store (spec ch. 04 §7.6 and §7.8).

``mkdir_lock`` — short read-modify-write sections (``job.json``, status files). A
directory created with ``mkdir`` is the lock, as in the reference's session store (§8.3),
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
import time
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType

from mmr.errors import MmrError

_POLL_SECONDS = 0.025


class LockTimeoutError(MmrError):
    """A lock directory stayed held by a live process for longer than the wait budget."""


@contextlib.contextmanager
def mkdir_lock(path: Path, *, stale_after: float, timeout: float) -> Iterator[None]:
    """Hold the directory lock ``path`` for the duration of the ``with`` block.

    Polls every 25 ms. Raises :class:`LockTimeoutError` after ``timeout`` seconds, and
    ``FileNotFoundError`` when the parent directory has gone (e.g. the job was pruned).
    """
    deadline = time.monotonic() + timeout
    while True:
        try:
            path.mkdir(mode=0o700)
            break
        except FileExistsError:
            if _remove_if_stale(path, stale_after):
                continue
            if time.monotonic() >= deadline:
                raise LockTimeoutError(
                    f"Timed out waiting for lock {path}; if no mmr process is running, "
                    "remove that directory and retry"
                ) from None
            time.sleep(_POLL_SECONDS)
    try:
        yield
    finally:
        with contextlib.suppress(FileNotFoundError):
            path.rmdir()


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

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
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
