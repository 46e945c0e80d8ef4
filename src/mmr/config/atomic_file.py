"""How a config file's bytes reach disk (ch. 01 §9; Decisions "config writes", "symlinks").

Every config write is atomic: the new bytes go to a ``mkstemp`` file in the target's own
directory (an unpredictable name), are fsynced, and are renamed over the target, so a
reader sees the old file or the new one, never half of one. A file mmr creates is 0600
from the moment it exists; an existing file keeps its mode (a 0644 file stays 0644).

Symlinks: the project ``.mmr.yaml`` is never written through one (a pull request controls
it, so it could point anywhere); the user file's link is followed and its *target* is
replaced atomically, which keeps dotfile managers working (the link stays a link).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from pathlib import Path

NEW_FILE_MODE = 0o600
NEW_DIR_MODE = 0o700


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
    tmp = _write_temp(target, data, mode)
    try:
        tmp.replace(target)
    except BaseException:
        _remove(tmp)
        raise
    _fsync_dir(target.parent)
    return target


def create_file(path: Path, data: bytes) -> None:
    """Create ``path`` (mode 0600) with ``data``; never replaces anything that exists.

    The temp file is hard-linked into place, which fails if a file (or a symlink) appeared
    at ``path`` meanwhile: ``FileExistsError``.
    """
    tmp = _write_temp(path, data, NEW_FILE_MODE)
    try:
        try:
            os.link(tmp, path, follow_symlinks=False)
        except OSError as exc:
            if exc.errno == errno.EEXIST:
                raise FileExistsError(errno.EEXIST, "File exists", str(path)) from None
            _create_exclusive(path, data)  # a filesystem without hard links
    finally:
        _remove(tmp)
    _fsync_dir(path.parent)


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


def _write_temp(target: Path, data: bytes, mode: int) -> Path:
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    tmp = Path(name)
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), mode)
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        _remove(tmp)
        raise
    return tmp


def _create_exclusive(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, NEW_FILE_MODE)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def _remove(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()


def _fsync_dir(directory: Path) -> None:
    # Makes the rename durable; some filesystems refuse fsync on a directory.
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
