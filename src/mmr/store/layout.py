"""Names in the jobs directory: job ids, channel names, a job's files.

Every path the store builds comes from a :class:`JobPaths`, and a :class:`JobPaths` can
only be made from a job id that names one entry directly inside the jobs directory and
channel names that are a single safe path component. Validation happens on the strings,
before any filesystem call, so ``../x``, ``/etc``, ``a/b`` or a NUL never reach ``open``.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from pathlib import Path

from mmr.errors import JobNotFoundError, MmrError

#: Ids mmr and MMR 4.0.1 create (``ack --job`` requires exactly this).
STRICT_JOB_ID = re.compile(r"mmr-[a-f0-9]{12}")
#: Ids ``status``/``results``/``reconcile`` accept: any one plain entry of the jobs dir.
#: Leading dots are refused, which rules out ``.``, ``..`` and the store's own temp files.
_LOADABLE_JOB_ID = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,254}")
_CHANNEL_NAME = re.compile(r"[a-zA-Z0-9._-]+")

COMPENSATING_PREFIX = "compensating-"


class UnsafeChannelNameError(MmrError):
    """A channel name that could not safely become a file name."""


def new_job_id() -> str:
    """``mmr-`` + 12 lowercase hex characters from 6 random bytes."""
    return f"mmr-{secrets.token_hex(6)}"


def is_strict_job_id(job_id: str) -> bool:
    return STRICT_JOB_ID.fullmatch(job_id) is not None


def check_job_id(job_id: str) -> str:
    """``job_id`` when it names an entry of the jobs dir, else :class:`JobNotFoundError`."""
    if _LOADABLE_JOB_ID.fullmatch(job_id) is None or job_id in {".", ".."}:
        raise JobNotFoundError(f"Job not found: {_printable(job_id)}")
    return job_id


def check_channel_name(name: str) -> str:
    """``name`` when it matches ``^[a-zA-Z0-9._-]+$`` (every file adds a suffix to it,
    so even ``..`` yields a plain file name such as ``...status.json``)."""
    if _CHANNEL_NAME.fullmatch(name) is None:
        raise UnsafeChannelNameError(f"Unsafe channel name: {_printable(name)}")
    return name


def compensating_name(original: str) -> str:
    """The job channel key of the compensating pass for ``original``."""
    return COMPENSATING_PREFIX + check_channel_name(original)


def _printable(text: str) -> str:
    # Ids come from the command line; keep control characters out of the error line.
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)


@dataclass(frozen=True)
class JobPaths:
    """The files of one job. Build with :meth:`for_job`; channel paths validate names."""

    root: Path

    @classmethod
    def for_job(cls, jobs_dir: Path, job_id: str) -> JobPaths:
        return cls(jobs_dir / check_job_id(job_id))

    @property
    def job_json(self) -> Path:
        return self.root / "job.json"

    @property
    def job_lock(self) -> Path:
        return self.root / "job.json.lock"

    @property
    def prompt(self) -> Path:
        return self.root / "prompt.txt"

    @property
    def diff(self) -> Path:
        return self.root / "diff.patch"

    @property
    def results(self) -> Path:
        return self.root / "results.json"

    @property
    def worker_lock(self) -> Path:
        return self.root / "worker.lock"

    @property
    def worker_log(self) -> Path:
        return self.root / "worker.log"

    @property
    def channels_dir(self) -> Path:
        return self.root / "channels"

    def channel_file(self, channel: str, suffix: str) -> Path:
        """``channels/<channel><suffix>``, e.g. ``suffix=".status.json"``."""
        return self.channels_dir / f"{check_channel_name(channel)}{suffix}"

    def status_file(self, channel: str) -> Path:
        return self.channel_file(channel, ".status.json")

    def output_file(self, channel: str) -> Path:
        return self.channel_file(channel, ".json")

    def log_file(self, channel: str) -> Path:
        return self.channel_file(channel, ".log")

    def prompt_file(self, channel: str) -> Path:
        return self.channel_file(channel, ".prompt.txt")
