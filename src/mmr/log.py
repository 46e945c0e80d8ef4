"""structlog wired to stderr only: stdout carries the report and nothing else."""

from __future__ import annotations

import os
import sys
from typing import Any

_state = {"configured": False}


def configure(verbose: bool = False) -> None:
    """Send structured logs to stderr; quiet (warnings and up) unless verbose or MMR_DEBUG."""
    import logging

    import structlog

    level = logging.DEBUG if verbose or os.environ.get("MMR_DEBUG") else logging.WARNING
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.dev.ConsoleRenderer(colors=False),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=False,
    )
    _state["configured"] = True


def get_logger(name: str) -> Any:
    """A structlog logger bound to ``name`` (configured on first use)."""
    import structlog

    if not _state["configured"]:
        configure()
    return structlog.get_logger(name)
