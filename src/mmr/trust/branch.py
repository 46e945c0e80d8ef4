"""What the checked-out branch changed in the project config and acks (docs/trust.md).

Locally the trusted ref is ``HEAD``, which is only trustworthy when HEAD is the
reviewer's own work. ``gh pr checkout N`` makes it someone else's, and their committed
``.mmr.yaml`` would run its commands. So a local run compares ``.mmr.yaml`` and
``.mmr/acks/`` at HEAD with the merge base of HEAD and the default branch: what the branch
changed there is proposed, not trusted, and meets the ratification gate.

The default branch is ``defaults.default_branch`` from the *user* config (a project file
must not pick the ref it is compared with), else ``origin/HEAD``, else ``main``/``master``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mmr import git
from mmr.config.loaded import ProjectSource, ProjectText, WorkingTree
from mmr.config.paths import PROJECT_CONFIG_NAME, user_config_path
from mmr.config.yaml_io import parse_config_mapping
from mmr.diff.proposed import ProposedChanges, detect_proposed_changes
from mmr.errors import GitError, MmrError
from mmr.trust.trusted_files import ACKS_DIR

_LOCAL_FALLBACKS = ("main", "master")
NO_DEFAULT_BRANCH = (
    "[mmr] warning: no default branch (origin/HEAD, main or master) to compare HEAD with, so "
    "the .mmr.yaml and acks committed at HEAD are trusted; if this checkout is someone "
    "else's branch its config can run commands here. Set defaults.default_branch in the "
    "user config, or pass --config-base-ref <trusted ref> to review.")


@dataclass(frozen=True)
class BranchDrift:
    """The default branch, HEAD's merge base with it, and what HEAD changed since."""

    default_branch: str
    merge_base: str
    proposed: ProposedChanges

    @property
    def changed(self) -> bool:
        return self.proposed.config_file_changed or bool(self.proposed.ack_files_changed)


def configured_default_branch() -> str | None:
    """``defaults.default_branch`` from the user config file, if set to a plain ref."""
    try:
        text = user_config_path().read_text(encoding="utf-8")
        data = parse_config_mapping(text, str(user_config_path()))
    except (OSError, UnicodeDecodeError, MmrError):
        return None
    defaults = data.get("defaults")
    name = defaults.get("default_branch") if isinstance(defaults, dict) else None
    return name if isinstance(name, str) and git.is_safe_ref(name) else None


def default_branch(root: Path) -> str | None:
    """The ref a local branch is compared with, or None when there is none."""
    configured = configured_default_branch()
    if configured is not None:
        return configured if git.ref_exists(configured, root) else None
    remote = git.symbolic_ref("refs/remotes/origin/HEAD", root)
    if remote is not None and git.is_safe_ref(remote):
        return remote
    return next((name for name in _LOCAL_FALLBACKS if git.ref_exists(name, root)), None)


def committed_branch_hint(root: Path) -> str | None:
    """For a working tree with nothing uncommitted: the command that reviews the branch's
    commits, when HEAD has commits its default branch lacks; else None."""
    branch = default_branch(root)
    if branch is None:
        return None
    try:
        ahead = git.log_oneline(branch, "HEAD", root)
    except GitError:  # unrelated histories, a shallow clone: nothing to suggest
        return None
    if not ahead.strip():
        return None
    return f"nothing uncommitted; review the branch with `mmr review --base {branch}`"


def branch_drift(root: Path) -> BranchDrift | None:
    """What HEAD changed in ``.mmr.yaml`` and acks since its merge base; None: unknowable."""
    branch = default_branch(root)
    if branch is None:
        return None
    try:
        base = git.merge_base(branch, "HEAD", root)
        paths = git.changed_paths(base, "HEAD", root, only=(PROJECT_CONFIG_NAME, ACKS_DIR))
    except GitError:  # unrelated histories, a shallow clone: nothing to compare with
        return None
    return BranchDrift(branch, base, detect_proposed_changes("", extra_paths=paths))


def has_project_files(root: Path, ref: str) -> bool:
    """Whether ``ref`` holds a ``.mmr.yaml`` or anything under ``.mmr/acks/``."""
    try:
        git.show_file(ref, PROJECT_CONFIG_NAME, root)
        return True
    except GitError:
        pass
    try:
        return bool(git.list_tree(ref, ACKS_DIR, root))
    except GitError:
        return False


def probe_project_source(root: Path, *,
                         trust_project_config: bool) -> tuple[ProjectSource | None, str | None]:
    """The project layer ``doctor`` and ``config test`` may run check commands from.

    The working tree (the user's own edits), unless the checked-out branch changed
    ``.mmr.yaml`` since its merge base: then the merge base's file, with a warning.
    """
    if trust_project_config or not git.is_inside_work_tree(root):
        return WorkingTree(), None
    drift = branch_drift(root)
    if drift is None:
        return WorkingTree(), NO_DEFAULT_BRANCH if has_project_files(root, "HEAD") else None
    if not drift.proposed.config_file_changed:
        return WorkingTree(), None
    warning = (f"[mmr] warning: this branch changed .mmr.yaml since its merge base with "
               f"{drift.default_branch} ({drift.merge_base[:12]}); its check commands are not "
               "run: the merge base's config is used. Pass --trust-project-config to use the "
               "branch's.")
    try:
        text = git.show_file(drift.merge_base, PROJECT_CONFIG_NAME, root)
    except GitError:
        return None, warning
    label = f"{drift.merge_base[:12]}:{PROJECT_CONFIG_NAME}"
    return ProjectText(text, label), warning
