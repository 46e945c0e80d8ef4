"""Ack files on disk: the project and user scope directories.

| scope   | directory                          | root checked against  |
|---------|------------------------------------|-----------------------|
| project | ``<project root>/.mmr/acks/``      | the project root      |
| user    | ``<MMR root>/acks/`` (``MMR_HOME``) | the MMR root          |

The store takes both roots explicitly; the CLI resolves them. Project acks live in the
reviewed tree, which may be hostile, so every access first proves the scope directory
does not leave its root through a symlinked ancestor, single files are never read or
written through a symlink, and oversized or malformed files are skipped. Reads of a
project scope may also come from a trusted git ref instead of the working tree.
Each store instance caches a scope after its first read; writes invalidate it.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mmr.acks.record import (
    ACK_FILE_NAME,
    MAX_ACK_BYTES,
    AckRecord,
    AckScope,
    ack_record_problem,
    check_finding_key,
)
from mmr.errors import MmrError
from mmr.fs import atomic_write_bytes, read_bytes_nofollow
from mmr.trust.trusted_files import read_project_acks_at_ref

PROJECT_ACKS_DIR = Path(".mmr") / "acks"
_LIST_ORDER: tuple[AckScope, ...] = ("user", "project")
PROJECT_DISABLED = "project-scope acks are disabled (no project root configured)"


class AckStoreError(MmrError):
    """An ack scope cannot be used safely, or an ack could not be written (exit 1)."""


@dataclass(frozen=True)
class SkippedAckFile:
    """A ``<key>.json`` file that lookups ignore, and why."""

    path: Path
    reason: str


@dataclass(frozen=True)
class ScopeContents:
    """The valid records of one scope in file-name order, and the files it skipped."""

    records: tuple[AckRecord, ...] = ()
    skipped: tuple[SkippedAckFile, ...] = ()
    directory: Path | None = None


@dataclass
class AckStore:
    """Ack files under ``user_root`` (the MMR root) and, optionally, ``project_root``."""

    user_root: Path
    project_root: Path | None = None
    _cache: dict[str, ScopeContents] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        self.user_root = self.user_root.absolute()
        if self.project_root is not None:
            self.project_root = self.project_root.absolute()

    # -- locations ---------------------------------------------------------------------

    def scope_root(self, scope: AckScope) -> Path:
        if scope == "user":
            return self.user_root
        if self.project_root is None:
            raise AckStoreError(PROJECT_DISABLED)
        return self.project_root

    def scope_dir(self, scope: AckScope) -> Path:
        """The scope's directory, after proving no symlinked ancestor moves it out of its root."""
        root = self.scope_root(scope)
        directory = root / PROJECT_ACKS_DIR if scope == "project" else root / "acks"
        real_root = Path(os.path.realpath(root))
        real_dir = Path(os.path.realpath(directory))
        if not real_dir.is_relative_to(real_root):
            raise AckStoreError(
                f"ack {scope} directory escapes its root via a symlinked ancestor: {directory}"
            )
        return directory

    def ack_path(self, key: str, scope: AckScope) -> Path:
        return self.scope_dir(scope) / f"{check_finding_key(key)}.json"

    # -- reading -----------------------------------------------------------------------

    def read_scope(self, scope: AckScope) -> ScopeContents:
        """The working-tree records of ``scope``; a project scope without a root is empty."""
        if scope == "project" and self.project_root is None:
            return ScopeContents()
        if scope not in self._cache:
            directory = self.scope_dir(scope)
            self._cache[scope] = _read_directory(directory)
        return self._cache[scope]

    def read_project_at_ref(self, ref: str) -> ScopeContents:
        """The project acks committed at ``ref``; any git failure reads as none."""
        if self.project_root is None:
            return ScopeContents()
        cache_key = f"ref:{ref}"
        if cache_key not in self._cache:
            records = []
            for ack in read_project_acks_at_ref(self.project_root, ref):
                record = AckRecord.from_json(ack.record, ack.finding_key)
                if record is not None:
                    records.append(record)
            self._cache[cache_key] = ScopeContents(records=tuple(records))
        return self._cache[cache_key]

    def list_all(self) -> list[AckRecord]:
        """User records, then project records; a project record takes a same-key user
        record's place (as ``mmr ack list`` shows them). Working tree, no trust gating."""
        merged: dict[str, AckRecord] = {}
        for scope in _LIST_ORDER:
            for record in self.read_scope(scope).records:
                merged[record.finding_key] = record
        return list(merged.values())

    # -- writing -----------------------------------------------------------------------

    def add(self, record: AckRecord | Mapping[str, Any], scope: AckScope) -> Path:
        """Write ``<key>.json`` atomically into ``scope``; refuse to write through a symlink."""
        raw = record.to_json_dict() if isinstance(record, AckRecord) else dict(record)
        key = raw.get("finding_key")
        check_finding_key(key if isinstance(key, str) else str(key))
        if ack_record_problem(raw, str(key)) is not None:
            raise AckStoreError(f"Invalid ack record for {key}: missing or mistyped fields")
        checked = AckRecord.model_validate(raw)
        directory = self.scope_dir(scope)
        directory.mkdir(mode=0o700 if scope == "user" else 0o777, parents=True, exist_ok=True)
        path = directory / f"{checked.finding_key}.json"
        if path.is_symlink():
            raise AckStoreError(f"Refusing to write ack through a symlink: {path}")
        # rename() replaces a symlink planted meanwhile instead of writing through it.
        atomic_write_bytes(path, checked.file_bytes())
        self.invalidate(scope)
        return path

    def remove(self, key: str, scope: AckScope) -> bool:
        """Unlink ``<key>.json`` from ``scope``; True when it existed."""
        path = self.ack_path(key, scope)
        try:
            path.unlink()
        except FileNotFoundError:
            return False
        finally:
            self.invalidate(scope)
        return True

    def invalidate(self, scope: AckScope) -> None:
        """Forget the cached working-tree read of ``scope`` (after a change on disk)."""
        self._cache.pop(scope, None)


def _read_directory(directory: Path) -> ScopeContents:
    try:
        names = sorted(entry.name for entry in os.scandir(directory))
    except FileNotFoundError:
        return ScopeContents(directory=directory)
    except OSError as exc:
        raise AckStoreError(f"cannot read ack directory {directory}: {exc.strerror}") from None
    records: list[AckRecord] = []
    skipped: list[SkippedAckFile] = []
    for name in names:
        if ACK_FILE_NAME.fullmatch(name) is None:
            continue
        path = directory / name
        record, problem = _read_ack_file(path, name.removesuffix(".json"))
        if record is not None:
            records.append(record)
        elif problem is not None:
            skipped.append(SkippedAckFile(path, problem))
    return ScopeContents(tuple(records), tuple(skipped), directory)


def _read_ack_file(path: Path, key: str) -> tuple[AckRecord | None, str | None]:
    """The record, or the reason it is skipped (neither when the file vanished meanwhile)."""
    data = ack_file_bytes(path)
    if not isinstance(data, bytes):
        return None, data
    try:
        value = json.loads(data.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):  # RecursionError: a planted file nested too deep
        return None, "not valid JSON"
    problem = ack_record_problem(value, key)
    if problem is not None:
        return None, problem
    with contextlib.suppress(ValueError):
        return AckRecord.model_validate(value), None
    return None, "missing or mistyped fields"


def ack_file_bytes(path: Path) -> bytes | str | None:
    """The content of a plain, small file; else the skip reason (None: it vanished)."""
    too_large = f"larger than {MAX_ACK_BYTES // 1024} KiB"
    try:
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode):
            return "symlink"
        if not stat.S_ISREG(info.st_mode):
            return "not a regular file"
        if info.st_size > MAX_ACK_BYTES:
            return too_large
        data = read_bytes_nofollow(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"unreadable: {exc.strerror}"
    # The size may have grown between lstat and read.
    return too_large if len(data) > MAX_ACK_BYTES else data
