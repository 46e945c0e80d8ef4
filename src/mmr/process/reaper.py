"""No descendant outlives its channel (docs/trust.md, "escaped descendants").

A process group is not a cage: a grandchild can ``setpgid`` into a group of its own,
``setsid`` into a new session, or simply outlive its parent while holding a pipe. So, on
Linux:

- mmr is a child subreaper (``prctl(PR_SET_CHILD_SUBREAPER)``): an orphaned descendant
  is re-parented to mmr instead of init, so it stays in mmr's process tree;
- every child gets ``MMR_REAPER_MARK=<scope>:<n>`` in its environment, inherited by
  whatever it starts, so a descendant is attributed to its channel however it escaped;
- when a child ends, times out or is cancelled, :func:`reap_child` SIGKILLs every process
  of mmr's tree that carries its mark or sits in its session or process group;
- :func:`start_watchdog` (the detached worker) leaves a sentinel that, should the worker
  die — even by ``kill -9`` — kills every process carrying the worker's scope.

Elsewhere (no ``/proc``) the process-group kill of :mod:`mmr.process.subprocess` is all.
A descendant that clears its environment *and* leaves the session is not attributable.
"""

from __future__ import annotations

import ctypes
import functools
import itertools
import os
import signal
import subprocess
import sys
from contextlib import suppress
from pathlib import Path
from typing import NamedTuple

MARK_VAR = "MMR_REAPER_MARK"
PR_SET_CHILD_SUBREAPER = 36
_PROC = Path("/proc")
_SCOPE = os.urandom(8).hex()
_counter = itertools.count(1)


@functools.cache
def become_subreaper() -> bool:
    """Make this process a child subreaper (once); False where the OS has no such thing."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def new_mark() -> str:
    """A mark for the next child: this process's scope and a serial number."""
    return f"{_SCOPE}:{next(_counter)}"


class _Proc(NamedTuple):
    pid: int
    ppid: int
    pgid: int
    sid: int


def _stat_fields(pid: int | str) -> list[bytes]:
    """``/proc/<pid>/stat`` after the command name: state, ppid, pgid, sid, the rest."""
    try:
        stat = (_PROC / str(pid) / "stat").read_bytes()
    except OSError:
        return []
    return stat[stat.rfind(b")") + 2:].split(None, 4)


def _snapshot() -> dict[int, _Proc]:
    """Every live (not zombie) process's pid, ppid, pgid and sid."""
    procs: dict[int, _Proc] = {}
    try:
        entries = os.scandir(_PROC)
    except OSError:
        return procs
    with entries, suppress(OSError):  # a listing cut short: what was read so far
        for entry in entries:
            fields = _stat_fields(entry.name) if entry.name.isdigit() else []
            if len(fields) > 3 and fields[0] != b"Z":
                pid = int(entry.name)
                procs[pid] = _Proc(pid, int(fields[1]), int(fields[2]), int(fields[3]))
    return procs


def _environ(pid: int) -> list[bytes]:
    try:
        return (_PROC / str(pid) / "environ").read_bytes().split(b"\0")
    except OSError:
        return []


def _descendants(root: int, procs: dict[int, _Proc]) -> set[int]:
    children: dict[int, list[int]] = {}
    for proc in procs.values():
        children.setdefault(proc.ppid, []).append(proc.pid)
    found: set[int] = set()
    stack = list(children.get(root, ()))
    while stack:
        pid = stack.pop()
        if pid not in found:
            found.add(pid)
            stack.extend(children.get(pid, ()))
    return found


def _kill(pids: set[int]) -> int:
    me = os.getpid()
    for pid in pids:
        with suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    for pid in pids:  # re-parented to this subreaper: collect them, or they stay zombies
        with suppress(ChildProcessError, OSError):
            fields = _stat_fields(pid)
            if len(fields) > 1 and int(fields[1]) == me:
                os.waitpid(pid, 0)
    return len(pids)


def reap_child(pid: int, mark: str) -> int:
    """SIGKILL what is left of child ``pid``: in its group or session, or carrying ``mark``.

    Only processes in this process's own tree are candidates (a subreaper keeps orphans
    there), so nothing of another program is touched. Returns how many were killed.
    """
    if not _PROC.is_dir():
        return 0
    procs = _snapshot()
    entry = f"{MARK_VAR}={mark}".encode()
    # The child itself is left to its own waiter (asyncio): only what it left behind.
    return _kill({p for p in _descendants(os.getpid(), procs) if p != pid
                  and (pid in (procs[p].pgid, procs[p].sid) or entry in _environ(p))})


def reap_scope(scope_id: str) -> int:
    """SIGKILL every process of this user carrying a mark of ``scope_id`` (the watchdog)."""
    if not _PROC.is_dir():
        return 0
    prefix = f"{MARK_VAR}={scope_id}:".encode()
    return _kill({p for p in _snapshot() if p != os.getpid()
                  and any(item.startswith(prefix) for item in _environ(p))})


def start_watchdog() -> None:
    """Leave a sentinel that kills this process's channels once this process is gone.

    It inherits the read end of a pipe whose write end only this process holds, so EOF
    means this process died, however it died.
    """
    if not _PROC.is_dir():
        return
    read_fd, write_fd = os.pipe()
    os.set_inheritable(write_fd, False)
    try:
        subprocess.Popen([sys.executable, "-P", "-m", "mmr.process.reaper", _SCOPE, str(read_fd)],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True, pass_fds=(read_fd,))
    except OSError:
        os.close(write_fd)
    finally:
        os.close(read_fd)


def _watch(scope_id: str, fd: int) -> int:
    with suppress(OSError):
        while os.read(fd, 1):
            pass
    reap_scope(scope_id)
    return 0


if __name__ == "__main__":
    raise SystemExit(_watch(sys.argv[1], int(sys.argv[2])))
