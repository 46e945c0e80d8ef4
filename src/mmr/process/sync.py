"""Short captured commands without an event loop: git, gh, path discovery, probes.

Same contract as :func:`mmr.process.subprocess.run_process` (a :class:`ProcessOutcome`,
never an exception for the child's failure, its own session so a timeout kills the whole
group), without importing anyio: these calls sit on the path to the first channel spawn.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from contextlib import suppress

from mmr.process.types import ProcessOutcome, ProcessRequest, outcome_from_returncode, spawn_failure

__all__ = ["run_captured"]


def run_captured(req: ProcessRequest) -> ProcessOutcome:
    """Run ``req`` to completion, stdout and stderr captured; stdin from ``req.stdin`` or empty.

    ``max_capture_bytes`` marks an over-long stdout as ``truncated`` (the head is kept).
    """
    started = time.monotonic()
    try:
        process = subprocess.Popen(
            list(req.argv), cwd=req.cwd, env=None if req.env is None else dict(req.env),
            stdin=subprocess.PIPE if req.stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
        )
    except (OSError, ValueError) as exc:
        missing = isinstance(exc, FileNotFoundError) and exc.filename != str(req.cwd)
        detail = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return spawn_failure(req, f"could not run {req.argv[0]}: {detail}", started,
                             not_found=missing)
    timed_out = False
    try:
        stdout, stderr = process.communicate(req.stdin, timeout=req.timeout_s)
    except subprocess.TimeoutExpired:
        timed_out = True
        with suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
    limit = req.max_capture_bytes
    total = len(stdout)
    return outcome_from_returncode(
        req, returncode=process.returncode, pid=process.pid,
        elapsed_s=time.monotonic() - started, timed_out=timed_out,
        stdout=stdout if limit is None else stdout[:limit], stdout_bytes=total,
        truncated=limit is not None and total > limit,
        stderr=stderr[: req.max_stderr_bytes], stderr_truncated=len(stderr) > req.max_stderr_bytes,
    )
