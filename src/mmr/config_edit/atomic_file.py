"""How a config file's bytes reach disk.

Every config write is atomic: the new bytes go to a ``mkstemp`` file in the target's own
directory (an unpredictable name), are fsynced, and are renamed over the target, so a
reader sees the old file or the new one, never half of one. A file mmr creates is 0600
from the moment it exists; an existing file keeps its mode (a 0644 file stays 0644).

Symlinks: the project ``.mmr.yaml`` is never written through one (a pull request controls
it, so it could point anywhere); the user file's link is followed and its *target* is
replaced atomically, which keeps dotfile managers working (the link stays a link).

This module is the config policy (symlinks, modes, exclusive creation, rollback); the
write itself is the store's (:mod:`mmr.fs`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path

from mmr.fs import DIR_MODE as NEW_DIR_MODE
from mmr.fs import FILE_MODE as NEW_FILE_MODE
from mmr.fs import atomic_write_bytes, fsync_dir, remove_if_present, write_temp


class SymlinkRefused(OSError):
    """The target is a symlink and this write must not follow it."""


def symlink_refusal(path: Path) -> str:
    return f"refusing to write through a symlink: {path}"


def resolve_target(path: Path, *, follow_symlink: bool) -> Path:
    """The file a write to ``path`` replaces: ``path`` itself, or its link's final target.

    Raises :class:`SymlinkRefused` for a symlink when ``follow_symlink`` is false.
    """
    if not path.is_symlink():
        return path
    if not follow_symlink:
        raise SymlinkRefused(symlink_refusal(path))
    return Path(os.path.realpath(path))


def read_snapshot(path: Path, *, follow_symlink: bool) -> bytes | None:
    """The file's current bytes (None when it does not exist), for an exact rollback."""
    try:
        target = resolve_target(path, follow_symlink=follow_symlink)
        return target.read_bytes()
    except FileNotFoundError:
        return None


def replace_file(path: Path, data: bytes, *, follow_symlink: bool) -> Path:
    """Atomically replace (or create) ``path`` with ``data``; returns the file written.

    The parent directory must exist. A new file gets mode 0600, an existing one keeps its.
    """
    target = resolve_target(path, follow_symlink=follow_symlink)
    try:
        mode: int = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = NEW_FILE_MODE
    atomic_write_bytes(target, data, mode=mode)
    return target


def create_file(path: Path, data: bytes) -> None:
    """Create ``path`` (mode 0600) with ``data``; never replaces anything that exists.

    The temp file is hard-linked into place, which fails if a file (or a symlink) appeared
    at ``path`` meanwhile: ``FileExistsError``.
    """
    tmp = write_temp(path, data, NEW_FILE_MODE)
    try:
        try:
            os.link(tmp, path, follow_symlinks=False)
        except OSError as exc:
            if exc.errno == errno.EEXIST:
                raise FileExistsError(errno.EEXIST, "File exists", str(path)) from None
            _create_exclusive(path, data)  # a filesystem without hard links
    finally:
        remove_if_present(tmp)
    fsync_dir(path.parent)


def restore_snapshot(path: Path, snapshot: bytes | None, *, follow_symlink: bool) -> None:
    """Put back the exact bytes :func:`read_snapshot` saw, or delete a file that was new."""
    if snapshot is not None:
        replace_file(path, snapshot, follow_symlink=follow_symlink)
        return
    with contextlib.suppress(FileNotFoundError):
        resolve_target(path, follow_symlink=follow_symlink).unlink()


def ensure_parent_dir(path: Path) -> None:
    """Create the directory ``path`` lives in (new directories are private, 0700)."""
    path.parent.mkdir(mode=NEW_DIR_MODE, parents=True, exist_ok=True)


def _create_exclusive(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, NEW_FILE_MODE)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
