"""Reading project config and acks from a trusted git ref.

These readers never raise: an unsafe ref or path, a missing ref or file, or any git
failure reads as "nothing there". Every read goes through real git, so a planted
``.git`` directory yields nothing.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from mmr import git
from mmr.config.loaded import ProjectText
from mmr.config.paths import PROJECT_CONFIG_NAME
from mmr.errors import GitError

ACKS_DIR = ".mmr/acks"
MAX_ACK_BYTES = 256 * 1024
_ACK_FILE_NAME = re.compile(r"[0-9a-f]{40}\.json")
_REGULAR_FILE_MODES = ("100644", "100755")


def read_file_at_ref(root: Path, ref: str, path: str) -> str | None:
    """The text of ``path`` (from the repository root) at ``ref``, or None (also for an
    unsafe ref or path, which git refuses to read)."""
    try:
        return git.show_file(ref, path, root)
    except GitError:
        return None


def list_files_at_ref(root: Path, ref: str, directory: str) -> list[git.TreeEntry] | None:
    """The entries directly inside ``directory`` at ``ref``, or None on any failure."""
    try:
        return git.list_tree(ref, directory, root)
    except GitError:
        return None


@dataclass(frozen=True)
class AckFile:
    """One committed project ack whose name and embedded ``finding_key`` agree.

    The ack store still validates the record's fields, as it does for working-tree acks.
    """

    file_name: str
    finding_key: str
    text: str
    record: dict[str, Any]


def read_project_acks_at_ref(root: Path, ref: str) -> list[AckFile]:
    """The ack files committed under ``.mmr/acks/`` at ``ref``.

    Skips anything that is not a regular ``<40 hex>.json`` file of at most 256 KiB,
    not a JSON object, or whose ``finding_key`` differs from its name. Any git failure
    means no project acks at all.
    """
    entries = list_files_at_ref(root, ref, ACKS_DIR)
    if entries is None:
        return []
    acks: list[AckFile] = []
    for entry in entries:
        name = PurePosixPath(entry.path).name
        if (entry.kind != "blob" or entry.mode not in _REGULAR_FILE_MODES
                or not _ACK_FILE_NAME.fullmatch(name)
                or entry.size is None or entry.size > MAX_ACK_BYTES):
            continue
        text = read_file_at_ref(root, ref, entry.path)
        if text is None:
            return []
        ack = _parse_ack(name, text)
        if ack is not None:
            acks.append(ack)
    return acks


def _parse_ack(name: str, text: str) -> AckFile | None:
    key = name.removesuffix(".json")
    try:
        record = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: a planted file nested too deep
        return None
    if not isinstance(record, dict) or record.get("finding_key") != key:
        return None
    return AckFile(file_name=name, finding_key=key, text=text, record=record)


def read_project_config_at_ref(root: Path, ref: str) -> ProjectText | None:
    """``git show <ref>:.mmr.yaml``; None when the ref or the file is missing."""
    text = read_file_at_ref(root, ref, PROJECT_CONFIG_NAME)
    return None if text is None else ProjectText(text, f"{ref}:{PROJECT_CONFIG_NAME}")


def read_project_config_in_work_tree(root: Path) -> tuple[ProjectText | None, str | None]:
    """``<root>/.mmr.yaml`` from disk, and a warning when it exists but cannot be read."""
    path = root / PROJECT_CONFIG_NAME
    if not path.exists():
        return None, None
    try:
        data = path.read_bytes()
    except OSError as exc:
        return None, f"[mmr] warning: cannot read {path}: {exc.strerror or exc}; ignoring it"
    return ProjectText(data.decode("utf-8", errors="replace"), str(path)), None
