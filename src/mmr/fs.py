"""Crash-safe file writes and private directories.

Every file mmr keeps under ``~/.mmr`` is written through :func:`atomic_write_bytes`: the
bytes go to a uniquely named temp file in the target's own directory, are fsynced, and the
temp file is renamed over the target. A reader therefore sees either the old file or the
new one, never a prefix of the new one, and two writers never interleave inside one file.

``rename`` replaces a symlink at the target name instead of writing to where it points,
so by default a write never goes *through* a symlink. Callers that must keep a user's
link (the user config file) pass ``follow_symlinks=True``: the link's final
target is then replaced atomically and the link itself is left alone.

A full disk, a quota, a read-only filesystem or a permission refusal (:data:`WRITE_FAULTS`)
becomes :class:`mmr.errors.StoreWriteError`: one line naming the path and the fix.

This is mmr's one implementation of the temp-file-fsync-rename write: the config writer
(:mod:`mmr.config_edit.atomic_file`) builds its symlink and mode policy on :func:`write_temp`,
:func:`atomic_write_bytes` and :func:`fsync_dir`.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
import tempfile
from pathlib import Path
from typing import Any

from mmr.errors import StoreWriteError

FILE_MODE = 0o600
DIR_MODE = 0o700
#: Write failures that are the environment's, not mmr's: a typed one-line error.
#: ``EISDIR``: a directory sits where the file goes (a damaged store).
WRITE_FAULTS = frozenset({errno.ENOSPC, errno.EROFS, errno.EACCES, errno.EDQUOT, errno.EPERM,
                          errno.EISDIR})


def encode_text(text: str) -> bytes:
    """UTF-8 bytes for ``text``; undecodable bytes smuggled in as surrogates round-trip.

    Text read with ``errors="surrogateescape"`` (diffs, CLI output) gets its original bytes
    back; any other lone surrogate (e.g. half an emoji from a JSON ``\\udXXX`` escape)
    becomes the six-character escape instead of an encoding crash.
    """
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace")


def dumps_json(value: Any, *, indent: int | None = 2) -> bytes:
    """JSON as MMR 4.0.1 writes it: 2-space indent, non-ASCII kept as UTF-8.

    A lone surrogate can only occur inside a JSON string, where ``backslashreplace``
    produces a valid ``\\udXXX`` escape that decodes back to the same code unit.
    """
    text = json.dumps(value, ensure_ascii=False, indent=indent)
    return text.encode("utf-8", "backslashreplace")


def ensure_private_dir(path: Path) -> None:
    """Create ``path`` (mode 0700, parents as needed); refuse a symlink at ``path``.

    Missing parents are created 0700 too (``mkdir(parents=True)`` would leave them at
    the umask's 0755): a fresh ``~/.mmr`` is as private as the jobs inside it.
    """
    if path.is_symlink():
        raise OSError(f"refusing to use {path}: it is a symlink")
    for parent in reversed(path.parents):
        if not parent.exists():
            parent.mkdir(mode=DIR_MODE, exist_ok=True)
    path.mkdir(mode=DIR_MODE, exist_ok=True)
    if not path.is_dir():
        raise NotADirectoryError(f"{path} exists and is not a directory")


def atomic_write_bytes(path: Path, data: bytes, *, follow_symlinks: bool = False,
                       mode: int = FILE_MODE, durable: bool = True) -> None:
    """Replace ``path`` with ``data`` atomically (temp file + fsync + rename), mode 0600
    unless ``mode`` says otherwise.

    ``durable=False`` skips both fsyncs: the rename is still atomic (a reader sees the old
    or the new file), only a power loss may lose the write. For the job files a crashed job
    can do without; the job record and the final results stay durable.
    """
    target = Path(os.path.realpath(path)) if follow_symlinks else path
    try:
        tmp = write_temp(target, data, mode, durable=durable)
        try:
            tmp.replace(target)
        except BaseException:
            remove_if_present(tmp)
            raise
    except OSError as exc:
        if exc.errno in WRITE_FAULTS:
            raise StoreWriteError(path, exc) from exc
        raise
    if durable:
        fsync_dir(target.parent)


def atomic_write_text(path: Path, text: str, *, follow_symlinks: bool = False,
                      durable: bool = True) -> None:
    """:func:`atomic_write_bytes` for text (see :func:`encode_text`)."""
    atomic_write_bytes(path, encode_text(text), follow_symlinks=follow_symlinks, durable=durable)


def atomic_write_json(path: Path, value: Any, *, follow_symlinks: bool = False,
                      durable: bool = True) -> None:
    """:func:`atomic_write_bytes` for a JSON document (see :func:`dumps_json`)."""
    atomic_write_bytes(path, dumps_json(value), follow_symlinks=follow_symlinks, durable=durable)


def read_bytes_nofollow(path: Path) -> bytes:
    """Read a regular file without following a symlink at its final component.

    Opened without blocking and checked on the open descriptor, so a FIFO, a device or a
    directory in its place is an ``OSError`` naming ``path`` (``EISDIR`` for a directory),
    never a read that hangs, and nothing can be swapped in between. ``FileNotFoundError``
    when it is missing, ``OSError`` for a symlink.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        with os.fdopen(os.dup(fd), "rb") as handle:
            return handle.read()
    finally:
        os.close(fd)


def write_temp(target: Path, data: bytes, mode: int, *, durable: bool = True) -> Path:
    """``data`` (fsynced unless ``durable`` is off) in a new uniquely named file beside
    ``target`` with ``mode``.

    The name is unpredictable (``mkstemp``) and the mode is set before any byte is
    written; on failure the temp file is removed. The caller renames or links it.
    """
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    tmp = Path(name)
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), mode)
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
    except BaseException:
        remove_if_present(tmp)
        raise
    return tmp


def remove_if_present(path: Path) -> None:
    """Unlink ``path``; a file that is already gone is fine."""
    with contextlib.suppress(FileNotFoundError):
        path.unlink()


def fsync_dir(directory: Path) -> None:
    """Make a rename or link in ``directory`` durable (best effort)."""
    # Some filesystems refuse fsync on a directory.
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
