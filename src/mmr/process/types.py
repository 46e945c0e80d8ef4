"""The values around one child process: what to run (request) and what happened (outcome).

Both are immutable. A request prints only its redacted display form: argv with values of
secret-named flags hidden, the names (never the values) of the env entries that differ
from mmr's own environment, and the size of the stdin payload.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Literal

from mmr.secrets.redact import REDACTED, is_command_secret_key

StderrMode = Literal["capture", "suppress", "passthrough"]
DEFAULT_KILL_GRACE_S = 2.0
DEFAULT_STDERR_CAP = 1024 * 1024

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def redact_argv(argv: tuple[str, ...]) -> list[str]:
    """argv for display: ``--token X``, ``--token=X`` and ``API_KEY=X`` lose their value."""
    shown = list(argv)
    for i, arg in enumerate(argv):
        name, sep, _ = arg.partition("=")
        if sep and (name.startswith("-") or _ENV_NAME.fullmatch(name)):
            if is_command_secret_key(name):
                shown[i] = f"{name}={REDACTED}"
        elif (
            arg.startswith("-") and i + 1 < len(argv) and not argv[i + 1].startswith("-")
            and is_command_secret_key(arg)
        ):
            shown[i + 1] = REDACTED
    return shown


@dataclass(frozen=True, slots=True, repr=False)
class ProcessRequest:
    """One child to run. ``env`` is the child's complete environment (None: inherit mmr's).

    ``stdin`` is written to the child's stdin, which is then closed; with ``stdin=None``
    it is closed at once. ``prompt_file`` names a prompt file the caller already wrote and
    referenced in argv: it must exist, and stdin is closed at once. ``stdout`` is kept in
    memory up to ``max_capture_bytes`` (None: all of it) and the whole stream is also
    written to ``stdout_path`` when given.
    """

    argv: tuple[str, ...]
    cwd: Path | None = None
    env: Mapping[str, str] | None = None
    stdin: bytes | None = None
    prompt_file: Path | None = None
    timeout_s: float = 300.0
    stdout_path: Path | None = None
    max_capture_bytes: int | None = None
    label: str = ""
    stderr: StderrMode = "capture"
    max_stderr_bytes: int = DEFAULT_STDERR_CAP
    kill_grace_s: float = DEFAULT_KILL_GRACE_S
    #: Sees each captured stderr chunk; once it answers True the child is stopped as on a
    #: timeout and the outcome says ``gave_up`` (a CLI stuck retrying, e.g. offline codex).
    give_up: Callable[[bytes], bool] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "argv", tuple(self.argv))
        for name in ("cwd", "prompt_file", "stdout_path"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, Path):
                object.__setattr__(self, name, Path(value))
        if self.env is not None:
            object.__setattr__(self, "env", MappingProxyType(dict(self.env)))
        if not self.argv or not self.argv[0]:
            raise ValueError("ProcessRequest needs a non-empty argv")
        if not self.timeout_s > 0:
            raise ValueError(f"timeout must be > 0 seconds, got {self.timeout_s}")
        if self.stdin is not None and self.prompt_file is not None:
            raise ValueError("deliver the prompt on stdin or in a prompt file, not both")
        if (self.max_capture_bytes or 0) < 0 or self.max_stderr_bytes < 0:
            raise ValueError("capture limits must be >= 0")

    def display(self) -> str:
        """A one-line description that is safe to log: no env values, no prompt text."""
        parts = [shlex.join(redact_argv(self.argv))]
        if self.cwd is not None:
            parts.append(f"cwd={self.cwd}")
        if self.env is not None:
            changed = sorted(k for k, v in self.env.items() if os.environ.get(k) != v)
            dropped = sum(1 for k in os.environ if k not in self.env)
            parts.append(f"env=+[{','.join(changed)}]" + (f" -{dropped}" if dropped else ""))
        if self.prompt_file is not None:
            parts.append(f"prompt_file={self.prompt_file}")
        elif self.stdin is not None:
            parts.append(f"stdin={len(self.stdin)}B")
        parts.append(f"timeout={self.timeout_s:g}s")
        prefix = f"[{self.label}] " if self.label else ""
        return prefix + " ".join(parts)

    def __repr__(self) -> str:
        return f"ProcessRequest({self.display()})"


@dataclass(frozen=True, slots=True, repr=False)
class ProcessOutcome:
    """What one child did. ``rc`` is None when it did not exit normally (see ``killed_by``)."""

    label: str
    argv0: str
    rc: int | None
    stdout: bytes
    stderr: bytes
    elapsed_s: float
    timed_out: bool = False
    killed_by: signal.Signals | None = None
    not_found: bool = False
    spawn_error: str | None = None
    #: stdout went past ``max_capture_bytes``; ``stdout_bytes`` is the full size.
    truncated: bool = False
    stdout_bytes: int = 0
    stderr_truncated: bool = False
    pid: int | None = None
    #: The request's ``give_up`` stopped the child before it settled.
    gave_up: bool = False

    @property
    def spawned(self) -> bool:
        return self.spawn_error is None

    @property
    def succeeded(self) -> bool:
        """Exit code 0, within the deadline."""
        return self.rc == 0 and not self.timed_out

    def stdout_text(self) -> str:
        """stdout decoded once as UTF-8 (never per chunk)."""
        return self.stdout.decode("utf-8", errors="replace")

    def stderr_text(self) -> str:
        return self.stderr.decode("utf-8", errors="replace")

    def exit_message(self) -> str:
        """The synthetic log text for a failure without stderr."""
        if self.spawn_error is not None:
            return self.spawn_error
        if self.rc is not None:
            return f"Process exited with code {self.rc}"
        signal_note = f" (signal {self.killed_by.name})" if self.killed_by else ""
        return f"Process exited with code null{signal_note}"

    def __repr__(self) -> str:
        state = "timeout" if self.timed_out else self.exit_message()
        return (
            f"ProcessOutcome([{self.label}] {self.argv0}: {state}, stdout={self.stdout_bytes}B, "
            f"stderr={len(self.stderr)}B, {self.elapsed_s:.3f}s)"
        )


def spawn_failure(
    req: ProcessRequest, message: str, started: float, *, not_found: bool
) -> ProcessOutcome:
    """The outcome for a child that never started."""
    return ProcessOutcome(label=req.label, argv0=req.argv[0], rc=None, stdout=b"", stderr=b"",
                          elapsed_s=time.monotonic() - started, not_found=not_found,
                          spawn_error=message)


def outcome_from_returncode(req: ProcessRequest, *, returncode: int | None, pid: int,
                            elapsed_s: float, timed_out: bool, stdout: bytes, stdout_bytes: int,
                            truncated: bool, stderr: bytes, stderr_truncated: bool,
                            gave_up: bool = False) -> ProcessOutcome:
    """The outcome for a child that ran; a negative return code means a signal death."""
    killed_by = signal.Signals(-returncode) if returncode is not None and returncode < 0 else None
    return ProcessOutcome(label=req.label, argv0=req.argv[0],
                          rc=returncode if returncode is not None and returncode >= 0 else None,
                          stdout=stdout, stderr=stderr, elapsed_s=elapsed_s, timed_out=timed_out,
                          killed_by=killed_by, truncated=truncated, stdout_bytes=stdout_bytes,
                          stderr_truncated=stderr_truncated, pid=pid, gave_up=gave_up)
