"""The process of a replay channel: print a recorded reply on stdout and exit 0.

``python -m mmr.dispatch.replay_serve file PATH`` prints the file's bytes unchanged;
``... job JOBS_DIR JOB_ID CHANNEL`` prints the reply that job stored for that channel (the
job keeps it redacted, as every reply is kept). The prompt on stdin is not read. A reply
that cannot be read is a one-line reason on stderr and exit 1, which the dispatch reports
as the channel's failure.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mmr.log import stderr_line
from mmr.store.jobs import JobStore


def _reply(argv: list[str]) -> bytes:
    match argv:
        case ["file", path]:
            return Path(path).read_bytes()
        case ["job", root, job_id, channel]:
            text = JobStore(Path(root)).read_channel_output(job_id, channel)
            if text is None:
                raise OSError(f"job {job_id} has no stored reply of channel {channel}")
            return text.encode("utf-8", "surrogateescape")
    raise OSError("usage: replay_serve file PATH | job JOBS_DIR JOB_ID CHANNEL")


def main(argv: list[str]) -> int:
    try:
        reply = _reply(argv)
    except OSError as exc:
        stderr_line(f"replay: {exc}")
        return 1
    sys.stdout.buffer.write(reply)
    sys.stdout.buffer.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
