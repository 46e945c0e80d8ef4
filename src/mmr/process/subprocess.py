"""The one subprocess chokepoint: every child mmr starts goes through ``run_process``.

It never raises because of the child: a missing executable, a bad cwd, a non-zero exit,
a signal death or a timeout all come back as a ``ProcessOutcome``. Each child
runs in its own session, so a timeout or a Ctrl-C can stop the whole process group,
grandchildren included; when it ends, whatever it left
behind — also outside its group or session — is killed (:mod:`mmr.process.reaper`).

Settling follows MMR 4.0.1: the run is over when the process has exited **and** its
output pipes are closed, so a grandchild still holding stdout keeps it running until the
deadline. The prompt is fed on stdin by its own task, next to the stdout and stderr
readers, so a child that writes before it reads, reads nothing, or closes stdin early
can neither deadlock nor crash mmr.
"""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import time
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import BinaryIO

import anyio
from anyio.abc import ByteReceiveStream, ByteSendStream, Process

from mmr.fs import WRITE_FAULTS
from mmr.log import get_logger
from mmr.process.reaper import MARK_VAR, become_subreaper, new_mark, reap_child
from mmr.process.types import (
    ProcessOutcome,
    ProcessRequest,
    StderrMode,
    outcome_from_returncode,
    spawn_failure,
)

__all__ = ["ProcessOutcome", "ProcessRequest", "run_process"]

#: How long pipes may keep draining after the group was killed (an escaped daemon may hold them).
DRAIN_BOUND_S = 1.0
_POLL_S = 0.02
_READ_CHUNK = 64 * 1024
_STDERR_TARGET: dict[StderrMode, int | None] = {
    "capture": subprocess.PIPE,
    "suppress": subprocess.DEVNULL,
    "passthrough": None,
}

def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


class _Capture:
    """Keeps the head of a stream (up to ``limit``) in memory and in the tee file.

    The rest is drained and counted (``total``) but kept nowhere: a runaway channel
    cannot fill the disk any more than the memory.
    """

    def __init__(self, limit: int | None, file: BinaryIO | None = None) -> None:
        self.limit = limit
        self.file = file
        self.total = 0
        #: The tee refused a write (a full disk): the rest of the head stays in memory only.
        self.failed = False
        self._chunks: list[bytes] = []
        self._kept = 0

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = len(chunk) if self.limit is None else max(0, self.limit - self._kept)
        if room:
            self._chunks.append(chunk[:room])
            self._kept += min(room, len(chunk))
        if self.file is not None and not self.failed and room:
            try:
                self.file.write(chunk[:room])
            except OSError:
                self.failed = True

    def close(self) -> None:
        """Close the spool; a full disk refusing its last buffer is not an error."""
        if self.file is not None:
            with suppress(OSError):
                self.file.close()

    @property
    def truncated(self) -> bool:
        return self.total > self._kept

    def data(self) -> bytes:
        return b"".join(self._chunks)


async def _pump(stream: ByteReceiveStream, sink: _Capture,
                watch: Callable[[bytes], bool] | None = None,
                on_match: Callable[[], None] | None = None) -> None:
    with suppress(anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError):
        while True:
            chunk = await stream.receive(_READ_CHUNK)
            sink.feed(chunk)
            if watch is not None and on_match is not None and watch(chunk):
                on_match()
                watch = None


async def _feed_stdin(stdin: ByteSendStream | None, data: bytes | None) -> None:
    """Write the prompt, then close stdin; a child that stops reading is not an error."""
    if stdin is None:
        return
    try:
        if data:
            await stdin.send(data)
    except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        pass  # EPIPE: the child exited or closed stdin first; its exit decides the status
    finally:
        with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await stdin.aclose()


async def _stop_group(process: Process, grace_s: float, settled: Callable[[], bool]) -> None:
    """SIGTERM the group, give it ``grace_s`` to settle, then SIGKILL whatever is left."""
    _signal_group(process.pid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while not settled() and time.monotonic() < deadline:
        await anyio.sleep(_POLL_S)
    _signal_group(process.pid, signal.SIGKILL)


async def _supervise(process: Process, req: ProcessRequest, out: _Capture,
                     err: _Capture) -> tuple[bool, bool]:
    """Run the three I/O tasks until the child settles, the deadline fires or the request's
    ``give_up`` answers True; returns (timed out, gave up)."""
    settled = anyio.Event()
    stop = anyio.Event()  # settled, or given up on
    gave_up = False

    def give_up() -> None:
        nonlocal gave_up
        gave_up = True
        stop.set()

    async def settle() -> None:
        async with anyio.create_task_group() as readers:
            if process.stdout is not None:
                readers.start_soon(_pump, process.stdout, out)
            if process.stderr is not None:
                readers.start_soon(_pump, process.stderr, err, req.give_up, give_up)
        await process.wait()  # exit only: a grandchild holding stdin does not count (as Node)
        settled.set()
        stop.set()

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(_feed_stdin, process.stdin, req.stdin)
        tasks.start_soon(settle)
        with anyio.move_on_after(req.timeout_s):
            await stop.wait()
        timed_out = not stop.is_set()
        if not settled.is_set():
            await _stop_group(process, req.kill_grace_s, settled.is_set)
            with anyio.move_on_after(DRAIN_BOUND_S):
                await settled.wait()
        # A grandchild may still hold stdin or a pipe open; what was read is what counts.
        tasks.cancel_scope.cancel()
    return timed_out, gave_up and not timed_out


def _open_private(path: Path) -> BinaryIO:
    """``path`` truncated for writing, mode 0600, never through a symlink: a channel's
    output can quote the prompt, so it is as private as the prompt file."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    os.fchmod(fd, 0o600)  # an older file keeps its mode through O_CREAT
    return os.fdopen(fd, "wb")


def _precheck(req: ProcessRequest) -> str | None:
    if req.cwd is not None and not req.cwd.is_dir():
        return f"spawn {req.argv[0]} ENOENT (cwd {req.cwd} does not exist)"
    if req.prompt_file is not None and not req.prompt_file.is_file():
        return f"spawn {req.argv[0]}: prompt file {req.prompt_file} does not exist"
    return None


def _spawn_message(req: ProcessRequest, exc: Exception) -> str:
    if isinstance(exc, OSError) and exc.errno is not None:
        message = f"spawn {req.argv[0]} {errno.errorcode.get(exc.errno, str(exc.errno))}"
        if req.cwd is not None and exc.filename == str(req.cwd):
            message += f" (cwd {req.cwd} is not usable)"
        return message
    return f"spawn {req.argv[0]} failed: {exc}"


async def run_process(
    req: ProcessRequest, *, on_spawn: Callable[[int], None] | None = None
) -> ProcessOutcome:
    """Run one child to completion and describe what happened; never raises for the child.

    ``on_spawn(pid)`` runs right after the spawn (e.g. to write ``<ch>.pid``); if it
    raises, the child's group is stopped and the error propagates. Cancelling the calling
    scope (Ctrl-C) stops the group (SIGTERM, grace, SIGKILL) before re-raising.
    """
    log = get_logger(__name__)
    started = time.monotonic()
    problem = _precheck(req)
    if problem is not None:
        return spawn_failure(req, problem, started, not_found=False)
    try:
        tee = _open_private(req.stdout_path) if req.stdout_path is not None else None
    except OSError as exc:
        if exc.errno not in WRITE_FAULTS:
            return spawn_failure(req, f"cannot write stdout to {req.stdout_path}: {exc.strerror}",
                                 started, not_found=False)
        tee = None  # a full or read-only store: the reply is still read into memory, unspooled
    out = _Capture(req.max_capture_bytes, tee)
    err = _Capture(req.max_stderr_bytes)
    become_subreaper()
    mark = new_mark()
    env = {**(os.environ if req.env is None else req.env), MARK_VAR: mark}
    try:
        process = await anyio.open_process(list(req.argv), stdin=subprocess.PIPE,
                                           stdout=subprocess.PIPE,
                                           stderr=_STDERR_TARGET[req.stderr], cwd=req.cwd, env=env,
                                           start_new_session=True)
    except (OSError, ValueError) as exc:
        if tee is not None:
            tee.close()
        missing = isinstance(exc, FileNotFoundError) and exc.filename != str(req.cwd)
        return spawn_failure(req, _spawn_message(req, exc), started, not_found=missing)
    log.debug("process.spawned", pid=process.pid, request=req.display())
    try:
        if on_spawn is not None:
            on_spawn(process.pid)
        timed_out, gave_up = await _supervise(process, req, out, err)
    except BaseException:
        with anyio.CancelScope(shield=True):
            await _stop_group(process, req.kill_grace_s, lambda: process.returncode is not None)
        raise
    finally:
        # No descendant outlives its child (process/reaper); the /proc scan runs in a thread
        # so that many children settling at once do not stall each other's event loop.
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(reap_child, process.pid, mark)
        out.close()
        with anyio.CancelScope(shield=True), anyio.move_on_after(DRAIN_BOUND_S):
            await process.aclose()
    outcome = outcome_from_returncode(req, returncode=process.returncode, pid=process.pid,
                                      elapsed_s=time.monotonic() - started, timed_out=timed_out,
                                      stdout=out.data(), stdout_bytes=out.total,
                                      truncated=out.truncated, stderr=err.data(),
                                      stderr_truncated=err.truncated, gave_up=gave_up)
    log.debug("process.settled", outcome=repr(outcome))
    return outcome
