"""Start a process that outlives mmr: the detached worker of a fire-and-forget review."""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Sequence
from pathlib import Path

__all__ = ["DetachedProcess", "spawn_detached"]

DetachedProcess = subprocess.Popen[bytes]


def spawn_detached(argv: Sequence[str], *, cwd: Path, output_fd: int,
                   pass_fds: Sequence[int] = ()) -> DetachedProcess:
    """Start ``argv`` in its own session, stdin a pipe, stdout and stderr to ``output_fd``.

    Raises ``OSError`` when it cannot start. Nobody waits for it; a daemon thread reaps it
    should this process outlive it (an in-process caller), so it never lingers as a zombie.
    """
    process = subprocess.Popen(list(argv), stdin=subprocess.PIPE, stdout=output_fd,
                               stderr=output_fd, cwd=cwd, start_new_session=True,
                               pass_fds=tuple(pass_fds))
    threading.Thread(target=process.wait, name=f"reap-{process.pid}", daemon=True).start()
    return process
