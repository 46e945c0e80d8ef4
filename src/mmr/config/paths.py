"""Every directory and file mmr reads or writes state in, resolved in one place.

The layout is the reference's ``~/.mmr`` (config, jobs, sessions, acks carry over).
``MMR_HOME`` relocates all of it — the user ``config.yaml`` included (Decisions) — which
is also the hook the tests use so that nothing reaches the real home directory.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

PROJECT_CONFIG_NAME = ".mmr.yaml"
USER_CONFIG_NAME = "config.yaml"


def mmr_home() -> Path:
    """The state root: ``$MMR_HOME`` when set and non-empty, else ``~/.mmr``."""
    override = os.environ.get("MMR_HOME", "")
    if override:
        return Path(override).expanduser().absolute()
    return Path.home() / ".mmr"


def user_config_path() -> Path:
    """The user ("global") config file, ``<mmr home>/config.yaml``."""
    return mmr_home() / USER_CONFIG_NAME


def jobs_dir() -> Path:
    """Where review jobs live (``<mmr home>/jobs``)."""
    return mmr_home() / "jobs"


def sessions_dir() -> Path:
    """Where multi-round review sessions live (``<mmr home>/sessions``)."""
    return mmr_home() / "sessions"


def user_acks_dir() -> Path:
    """Where the user's own acknowledgements live (``<mmr home>/acks``)."""
    return mmr_home() / "acks"


def project_config_path(project_root: Path) -> Path:
    """The project file, ``<project root>/.mmr.yaml``."""
    return project_root / PROJECT_CONFIG_NAME


def find_project_root(cwd: Path | None = None) -> Path:
    """The git top-level containing ``cwd``, or ``cwd`` itself outside a git work tree.

    This is the one git call outside ``mmr.git``: config loading must not depend on the
    rest of the git layer, and the question asked is tiny.
    """
    start = (cwd or Path.cwd()).absolute()
    top = _git_toplevel(start)
    return top if top is not None else start


def _git_toplevel(start: Path) -> Path | None:
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--show-toplevel"],
            cwd=start, capture_output=True, text=True, timeout=10, check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    line = done.stdout.strip()
    if done.returncode != 0 or not line:
        return None
    return Path(line)
