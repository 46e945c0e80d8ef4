"""Every directory and file mmr reads or writes state in, resolved in one place.

The layout is MMR 4.0.1's ``~/.mmr`` (config, jobs, sessions, acks carry over).
``MMR_HOME`` relocates all of it — the user ``config.yaml`` included — which
is also the hook the tests use so that nothing reaches the real home directory.
"""

from __future__ import annotations

import os
from pathlib import Path

from mmr import git
from mmr.errors import GitError

PROJECT_CONFIG_NAME = ".mmr.yaml"
USER_CONFIG_NAME = "config.yaml"
#: The environment variable that relocates the state root.
MMR_HOME_ENV = "MMR_HOME"


def mmr_home() -> Path:
    """The state root: ``$MMR_HOME`` when set and non-empty, else ``~/.mmr``."""
    override = os.environ.get(MMR_HOME_ENV, "")
    if override:
        return Path(override).expanduser().absolute()
    return Path.home() / ".mmr"


def user_config_path() -> Path:
    return mmr_home() / USER_CONFIG_NAME


def jobs_dir() -> Path:
    return mmr_home() / "jobs"


def sessions_dir() -> Path:
    return mmr_home() / "sessions"


def project_config_path(project_root: Path) -> Path:
    return project_root / PROJECT_CONFIG_NAME


def find_project_root(cwd: Path | None = None) -> Path:
    """The git top-level containing ``cwd``, or ``cwd`` itself outside a git work tree."""
    start = (cwd or Path.cwd()).absolute()
    try:
        return git.show_toplevel(start)
    except GitError:
        return start
