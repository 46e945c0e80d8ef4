"""Error classes the CLI boundary maps to exit codes.

Core code raises these; only ``mmr.cli.main`` turns them into a one-line message
and an exit code. Anything else escaping a command is a bug (exit 1 with a crash hint).
"""

from __future__ import annotations

import errno

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


class StoreWriteError(MmrError, OSError):
    """A file could not be written: disk full, quota, read-only filesystem, permission.

    Raised by the write chokepoint (:func:`mmr.fs.atomic_write_bytes`); it is an
    ``OSError`` too, so callers that already handle one keep doing so. Nothing half
    written is left: the temp file is removed and the target keeps its old content.
    """

    def __init__(self, path: object, exc: OSError) -> None:
        super().__init__(exc.errno, exc.strerror, str(path))
        self.path = str(path)

    def __str__(self) -> str:
        if self.errno in (errno.ENOSPC, errno.EDQUOT):
            fix = "Free space on that filesystem"
        elif self.errno == errno.EISDIR:
            fix = "Remove the directory in its place"
        else:
            fix = "Make it writable"
        return (f"cannot write {self.path}: {self.strerror}. {fix} or point MMR_HOME at "
                "a writable directory (default ~/.mmr)")


class StoreReadError(MmrError, OSError):
    """A job file exists but cannot be read: a directory in its place, a permission
    refusal, a symlink, an I/O error (exit 1, one line, never a traceback)."""

    def __init__(self, path: object, exc: OSError) -> None:
        super().__init__(exc.errno, exc.strerror, str(path))
        self.path = str(path)

    def __str__(self) -> str:
        if self.errno in (errno.EACCES, errno.EPERM):
            return (f"cannot read {self.path}: {self.strerror}. Make it readable by this user "
                    "(check its owner and mode) and retry")
        return (f"cannot read {self.path}: {self.strerror}. The job store is damaged there: "
                "remove that path (or the job's directory) and retry")
