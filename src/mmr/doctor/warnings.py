"""Warn before ``mmr doctor`` runs ``auth.check`` commands nobody has committed.

Doctor reads the working-tree ``.mmr.yaml`` without trust gating and runs its
``auth.check`` strings through ``sh`` — in an untrusted checkout, commands a pull request
chose. That stays (it is a local diagnostic), but when a check differs from the one at
``HEAD`` (or the file is not committed at all) and doctor is about to run it, the user
gets one stderr line first. Outside a git work tree there is nothing to compare with, so
nothing is said.
"""

from __future__ import annotations

from collections.abc import Container
from pathlib import Path
from typing import Any

from mmr import git
from mmr.config.paths import PROJECT_CONFIG_NAME, project_config_path
from mmr.config.yaml_io import parse_config_mapping
from mmr.config_edit.unseen import committed_project_config
from mmr.errors import MmrError


def auth_checks(text: str) -> dict[str, str]:
    """``{"<channel>" or "templates.<name>": check}`` for every ``auth.check`` string."""
    try:
        data = parse_config_mapping(text, PROJECT_CONFIG_NAME)
    except MmrError:
        return {}
    checks: dict[str, str] = {}
    for section, prefix in (("channels", ""), ("templates", "templates.")):
        entries: Any = data.get(section)
        if not isinstance(entries, dict):
            continue
        for name, entry in entries.items():
            auth = entry.get("auth") if isinstance(entry, dict) else None
            check = auth.get("check") if isinstance(auth, dict) else None
            if isinstance(check, str):
                checks[f"{prefix}{name}"] = check
    return checks


def uncommitted_auth_checks(project_root: Path) -> list[str]:
    """Names whose working-tree ``auth.check`` is not the one committed at ``HEAD``."""
    try:
        current = project_config_path(project_root).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    checks = auth_checks(current)
    if not checks or not git.is_inside_work_tree(project_root):
        return []
    committed = auth_checks(committed_project_config(project_root) or "")
    return [name for name, check in checks.items() if committed.get(name) != check]


def uncommitted_auth_warning(project_root: Path, probed: Container[str]) -> str | None:
    """The one-line stderr warning, or None when no check about to run is uncommitted.

    ``probed`` names the channels whose checks will run; a template's check may be
    inherited by any of them, so templates always count.
    """
    names = [name for name in uncommitted_auth_checks(project_root)
             if name.startswith("templates.") or name in probed]
    if not names:
        return None
    return (f"mmr: warning: {project_config_path(project_root)} has uncommitted auth.check "
            f"commands ({', '.join(names)}); doctor runs them with sh — read them first.")
