"""Error classes the CLI boundary maps to exit codes.

Core code raises these; only ``mmr.cli.main`` turns them into a one-line message
and an exit code. Anything else escaping a command is a bug (exit 1 with a crash hint).
"""

from __future__ import annotations

from mmr.vocabulary import EXIT_ERROR, EXIT_NOT_FOUND


class MmrError(Exception):
    """A user-facing error: the message says what is wrong and how to fix it."""

    exit_code: int = EXIT_ERROR


class UsageError(MmrError):
    """Bad flags or arguments (exit 1: exit 2 means `blocked`)."""


class ConfigError(MmrError):
    """A config file could not be read or validated. The message names file and key path."""


class ChannelSelectionError(MmrError):
    """An unknown, retired or abstract channel was named."""


class GitError(MmrError):
    """A git or gh invocation failed, or git is missing."""


class DiffError(MmrError):
    """The diff input is empty, unreadable or over budget."""


class JobNotFoundError(MmrError):
    """A job id does not name a readable job (exit 5)."""

    exit_code = EXIT_NOT_FOUND


class ReconcileInputError(MmrError):
    """`mmr reconcile` input is missing or invalid (exit 5)."""

    exit_code = EXIT_NOT_FOUND
