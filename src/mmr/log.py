"""stderr, the only place mmr talks to a person: plain lines, and structlog records.

stdout carries the report and nothing else. :func:`stderr_line` writes every notice,
warning and ``mmr: error:`` line.

Importing structlog (and the renderers it pulls in) costs over 100 ms, more than the
whole fan-out budget of a review. Most runs log nothing at all (the default threshold is
``warning``), so :func:`get_logger` returns a light proxy that imports and configures
structlog only when a record at or above the threshold is actually emitted.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any

_DEBUG, _INFO, _WARNING, _ERROR, _CRITICAL = 10, 20, 30, 40, 50
_METHOD_LEVELS = {
    "debug": _DEBUG, "info": _INFO, "msg": _INFO, "warning": _WARNING, "warn": _WARNING,
    "error": _ERROR, "exception": _ERROR, "critical": _CRITICAL, "fatal": _CRITICAL,
}
#: ``configured`` is the threshold structlog was last configured with (False: never).
_state: dict[str, Any] = {"configured": False}


def _threshold() -> int:
    return _DEBUG if os.environ.get("MMR_DEBUG") else _WARNING


def stderr_line(line: str) -> None:
    """Write one line to stderr, after whatever stdout still buffers, and flush.

    A closed or broken stderr is not worth failing a run for: the line is dropped.
    """
    with contextlib.suppress(OSError, ValueError):
        sys.stdout.flush()
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.write(line + "\n")
        sys.stderr.flush()


def configure() -> None:
    """Send structured logs to stderr; warnings and up unless ``MMR_DEBUG``."""
    import structlog

    level = _threshold()
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            structlog.processors.KeyValueRenderer(key_order=["timestamp", "level", "event"]),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(file=_CurrentStderr()),  # type: ignore[arg-type]
        cache_logger_on_first_use=False,
    )
    _state["configured"] = level


class _CurrentStderr:
    """Writes to whatever ``sys.stderr`` is *now* (tests and redirections swap it)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


def _noop(*_args: Any, **_kwargs: Any) -> None:
    return None


class LazyLogger:
    """A structlog-compatible logger that drops filtered records without importing structlog."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, method: str) -> Any:
        level = _METHOD_LEVELS.get(method)
        if level is not None and level < _threshold():
            return _noop
        import structlog

        if _state["configured"] != _threshold():  # first use, or MMR_DEBUG changed since
            configure()
        return getattr(structlog.get_logger(self._name), method)


def get_logger(name: str) -> Any:
    """A logger bound to ``name``; structlog is loaded on the first emitted record."""
    return LazyLogger(name)
