"""The one error boundary: every exception leaving a command becomes a line and an exit code.

- :class:`mmr.errors.MmrError` — ``mmr: error: <message>`` and the error's ``exit_code``;
- Ctrl-C — exit 130;
- a closed stdout pipe (``mmr results | head``) — quiet exit 1;
- anything else is a bug: ``mmr: error: <message>``, a crash log with versions and the
  traceback under ``$MMR_HOME/logs/``, exit 1.

The traceback reaches stderr only when ``MMR_DEBUG`` is set: users get one line, not a stack.
"""

from __future__ import annotations

import contextlib
import os
import platform
import sys
import traceback
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path

from mmr import __version__
from mmr.cli.output import discard_further_output
from mmr.config.paths import mmr_home
from mmr.errors import MmrError
from mmr.log import stderr_line
from mmr.vocabulary import EXIT_INTERRUPTED

_REPORTED_PACKAGES = ("typer", "pydantic", "structlog", "anyio", "httpx", "PyYAML", "ruamel.yaml")


def guard(action: Callable[[], int], argv: Sequence[str] = ()) -> int:
    """Run ``action`` and map whatever it raises to an exit code."""
    try:
        return action()
    except MmrError as exc:
        _debug_traceback(exc)
        stderr_line(f"mmr: error: {exc}")
        return exc.exit_code
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        with contextlib.suppress(OSError, ValueError):  # stdout may be closed already
            discard_further_output(sys.stdout.fileno())
        return 1
    except SystemExit as exc:
        return _system_exit_code(exc)
    except Exception as exc:
        return _crash(exc, argv)


def usage_error(command_path: Sequence[str], message: str) -> int:
    """A usage error: one line naming the bad argument, then where the usage is; return 1.

    No help text: the line says what is wrong, ``Try 'mmr <command> --help'`` the rest.
    """
    command = " ".join(["mmr", *command_path])
    stderr_line(f"mmr: error: {message}\nTry '{command} --help'")
    return 1


def _crash(exc: BaseException, argv: Sequence[str]) -> int:
    stderr_line(f"mmr: error: {describe(exc)}")
    try:
        path = write_crash_log(exc, argv)
    except OSError as log_error:
        stderr_line(f"mmr: could not write a crash log ({log_error}); the traceback follows")
        traceback.print_exception(exc, file=sys.stderr)
        return 1
    stderr_line(f"mmr: this is a bug in mmr; the details are in {path}")
    _debug_traceback(exc)
    return 1


def describe(exc: BaseException) -> str:
    """``Type: message`` — a bare message such as ``'key'`` means nothing without its type."""
    message = str(exc)
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def crash_report(exc: BaseException, argv: Sequence[str], now: datetime) -> str:
    """Text of a crash log: when, what ran, on which versions, and the traceback."""
    # Here, not at the top: importlib.metadata adds 13 ms to every command (python -X
    # importtime), and only a crash log needs it.
    from importlib import metadata

    lines = [
        "mmr crash report",
        f"time: {now.strftime('%Y-%m-%dT%H:%M:%SZ')}",
        f"mmr: {__version__}",
        f"python: {sys.version.split()[0]} ({sys.executable})",
        f"platform: {platform.platform()}",
    ]
    for package in _REPORTED_PACKAGES:
        try:
            lines.append(f"{package}: {metadata.version(package)}")
        except metadata.PackageNotFoundError:
            lines.append(f"{package}: not installed")
    lines += [
        f"argv: {' '.join(['mmr', *argv])}",
        f"cwd: {Path.cwd()}",
        "",
        "".join(traceback.format_exception(exc)).rstrip(),
        "",
    ]
    return "\n".join(lines)


def write_crash_log(exc: BaseException, argv: Sequence[str]) -> Path:
    """Write :func:`crash_report` to ``<mmr home>/logs/crash-<time>-<pid>.log`` (mode 0600)."""
    now = datetime.now(UTC)
    logs = mmr_home() / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    path = logs / f"crash-{now.strftime('%Y%m%dT%H%M%SZ')}-{os.getpid()}.log"
    # The log holds paths and arguments: readable by the user only.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8", errors="replace") as handle:
        handle.write(crash_report(exc, argv, now))
    return path


def _debug_traceback(exc: BaseException) -> None:
    if os.environ.get("MMR_DEBUG"):
        traceback.print_exception(exc, file=sys.stderr)


def _system_exit_code(exc: SystemExit) -> int:
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code
    stderr_line(str(exc.code))
    return 1
