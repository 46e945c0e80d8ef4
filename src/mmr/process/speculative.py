"""Children started ahead of the pipeline (the early start), waiting to be adopted.

The early start (:mod:`mmr.review.early`) starts each channel of a recipe here, before
the review's heavy imports, with the same spawn as :func:`mmr.process.subprocess.run_process`
(own session, pipes, a fresh reaper mark) and the prompt written by a daemon thread.
When the pipeline then reaches the chokepoint with a request, :func:`claim` hands over
the waiting child whose :class:`Identity` — argv, environment (the reaper mark aside), cwd,
stderr mode, capture limits and stdin bytes — is identical; anything else starts a child
of its own. :func:`kill_unclaimed` SIGKILLs and reaps every child nobody claimed.

Nothing here imports anyio or the models: it runs before them.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from collections.abc import Mapping, Sequence
from contextlib import suppress
from types import FrameType
from typing import IO, NamedTuple

from mmr.process.reaper import MARK_VAR, become_subreaper, new_mark, reap_child
from mmr.process.types import ProcessRequest, StderrMode

_STDERR: dict[StderrMode, int | None] = {
    "capture": subprocess.PIPE, "suppress": subprocess.DEVNULL, "passthrough": None,
}


class Identity(NamedTuple):
    """What must be equal for a waiting child to stand for a request."""

    argv: tuple[str, ...]
    env: tuple[tuple[str, str], ...]  #: the complete environment, sorted, mark removed
    cwd: str | None
    stderr: StderrMode
    max_capture_bytes: int | None
    max_stderr_bytes: int
    stdin: bytes

    @classmethod
    def build(cls, *, argv: tuple[str, ...], env: Mapping[str, str], cwd: str | None,
              stderr: StderrMode, max_capture_bytes: int | None, max_stderr_bytes: int,
              stdin: bytes) -> Identity:
        items = tuple(sorted((k, v) for k, v in env.items() if k != MARK_VAR))
        return cls(tuple(argv), items, cwd, stderr, max_capture_bytes, max_stderr_bytes, stdin)


def request_identity(req: ProcessRequest) -> Identity | None:
    """The identity of ``req``, or None when no waiting child may stand for it."""
    if req.prompt_file is not None:
        return None
    return Identity.build(
        argv=req.argv, env=os.environ if req.env is None else req.env,
        cwd=None if req.cwd is None else str(req.cwd), stderr=req.stderr,
        max_capture_bytes=req.max_capture_bytes, max_stderr_bytes=req.max_stderr_bytes,
        stdin=req.stdin or b"")


class SpeculativeChild:
    """One child started early: its process, its reaper mark, and its pipes."""

    __slots__ = ("identity", "mark", "popen")

    def __init__(self, identity: Identity, popen: subprocess.Popen[bytes], mark: str) -> None:
        self.identity = identity
        self.popen = popen
        self.mark = mark

    @property
    def pid(self) -> int:
        return self.popen.pid


_waiting: list[SpeculativeChild] = []
#: Re-entrant: the SIGTERM handler takes it, and may interrupt a holder in the same thread.
_lock = threading.RLock()


def start(identity: Identity) -> SpeculativeChild | None:
    """Start ``identity``'s child (see :func:`start_all`); None if the spawn fails."""
    return start_all([identity])[0]


def start_all(identities: Sequence[Identity]) -> list[SpeculativeChild | None]:
    """Start each identity's child, then feed each its stdin; None for a spawn that fails
    (the pipeline's own spawn then reports it).

    Every child is spawned before any feeding starts: the children's own start-up then
    competes with nothing of this process for the next spawn. A prompt that fits in its
    pipe is written at once; only the rest of a longer one is left to a daemon thread, so
    a child slow to read holds up no other.
    """
    become_subreaper()
    children = [_spawn(identity) for identity in identities]
    for child in children:
        stdin = None if child is None else child.popen.stdin
        if child is None or stdin is None:
            continue
        rest = _write_what_fits(stdin, child.identity.stdin)
        if rest is not None:
            threading.Thread(target=_feed, args=(stdin, rest), daemon=True,
                             name="mmr-early-stdin").start()
    return children


def _write_what_fits(stdin: IO[bytes], data: bytes) -> memoryview | None:
    """Write ``data`` without blocking and close stdin; what did not fit, if anything
    (stdin then left open and blocking, for :func:`_feed`)."""
    fd = stdin.fileno()
    view = memoryview(data)
    try:
        os.set_blocking(fd, False)
        while view:
            view = view[os.write(fd, view):]
    except BlockingIOError:
        os.set_blocking(fd, True)
        return view
    except (OSError, ValueError):
        pass  # EPIPE: the child exited or closed stdin first; its exit decides the status
    with suppress(OSError, ValueError):
        stdin.close()
    return None


def _spawn(identity: Identity) -> SpeculativeChild | None:
    mark = new_mark()
    try:
        popen = subprocess.Popen(
            list(identity.argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=_STDERR[identity.stderr], cwd=identity.cwd,
            env={**dict(identity.env), MARK_VAR: mark}, start_new_session=True, bufsize=0,
        )
    except (OSError, ValueError):
        return None
    child = SpeculativeChild(identity, popen, mark)
    with _lock:
        _waiting.append(child)
    return child


def _feed(stdin: IO[bytes], data: bytes | memoryview) -> None:
    """Write the prompt and close stdin; a child that stops reading is not an error."""
    view = memoryview(data)
    with suppress(OSError, ValueError):
        while view:
            written = stdin.write(view)
            view = view[written or len(view):]
    with suppress(OSError, ValueError):
        stdin.close()


def claim(req: ProcessRequest) -> SpeculativeChild | None:
    """The waiting child identical to ``req``, now the caller's; None if there is none."""
    with _lock:
        if not _waiting:
            return None
    wanted = request_identity(req)
    if wanted is None:
        return None
    with _lock:
        for child in _waiting:
            if child.identity == wanted:  # one that already exited left its output piped
                _waiting.remove(child)
                return child
    return None


def waiting_groups() -> list[int]:
    """The process groups of the children still waiting (the interrupt path signals them)."""
    with _lock:
        return [child.pid for child in _waiting]


def kill_unclaimed() -> int:
    """SIGKILL every waiting child's group (and what carries its mark), reap it; the count."""
    with _lock:
        children = list(_waiting)
        # Each group is killed before any leaves the list: a SIGTERM handled in between
        # (it calls this again, then ends mmr) still finds the ones not killed yet.
        for child in children:
            with suppress(ProcessLookupError, PermissionError):
                os.killpg(child.pid, signal.SIGKILL)
        _waiting[:] = [child for child in _waiting if child not in children]
    for child in children:
        with suppress(OSError, subprocess.SubprocessError):
            child.popen.wait()
        reap_child(child.pid, child.mark)
        for stream in (child.popen.stdout, child.popen.stderr):
            if stream is not None:
                with suppress(OSError):
                    stream.close()
    return len(children)


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    kill_unclaimed()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def stop_on_sigterm() -> None:
    """Until the dispatch installs its own handler, a SIGTERM first kills the waiting
    children, then ends mmr as the default action would (:func:`release` undoes it)."""
    if threading.current_thread() is threading.main_thread() \
            and signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _on_sigterm)


def release() -> None:
    """Kill what is still waiting and put the default SIGTERM action back."""
    kill_unclaimed()
    if threading.current_thread() is threading.main_thread() \
            and signal.getsignal(signal.SIGTERM) is _on_sigterm:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
