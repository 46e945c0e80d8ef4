"""The one notice a review prints when a project file exists but is not read.

``.mmr.yaml`` and ``.mmr/acks/`` load only from a trusted source (docs/trust.md), so a
``--diff`` review, a CI run, a non-git directory, or a file that is not committed where the
run reads from, all leave the working-tree file unread. Silently, that reads as a bug
(``Channel "x" not found in config``); the notice names the file, the reason and what would
read it. Nothing is printed when there is no such file, or when the ratification gate or
the branch warning already speaks about it.
"""

from __future__ import annotations

from pathlib import Path

from mmr.config.paths import PROJECT_CONFIG_NAME
from mmr.diff.inputs import DiffRequest
from mmr.diff.proposed import ProposedChanges
from mmr.trust.modes import TrustContext, is_ci
from mmr.trust.trusted_files import ACKS_DIR

PREFIX = "[mmr] notice: "


def _work_tree_config(root: Path) -> str | None:
    path = root / PROJECT_CONFIG_NAME
    try:
        return path.read_text(encoding="utf-8") if path.is_file() else None
    except (OSError, UnicodeDecodeError):
        return ""


def _has_work_tree_acks(root: Path) -> bool:
    directory = root / ACKS_DIR
    try:
        return directory.is_dir() and any(directory.glob("*.json"))
    except OSError:
        return False


def unread_project_files_notice(trust: TrustContext, request: DiffRequest,
                                proposed: ProposedChanges) -> str | None:
    """The notice for this run, or None when every existing project file is read."""
    if trust.mode == "base-ref":
        return _uncommitted_config_notice(trust, proposed)
    flags, root = trust.flags, trust.project_root
    config = _work_tree_config(root) is not None and not flags.trust_project_config
    acks = _has_work_tree_acks(root) and not (flags.trust_project_acks or flags.accept_new_acks)
    if not (config or acks):
        return None
    files = " and ".join(name for name, unread in ((PROJECT_CONFIG_NAME, config),
                                                   (ACKS_DIR + "/", acks)) if unread)
    trust_flags = " / ".join(flag for flag, unread in (("--trust-project-config", config),
                                                       ("--trust-project-acks", acks)) if unread)
    if trust.mode == "non-git":
        reason = "this is not a git repository, so there is no commit to read it from"
        fix = f"pass {trust_flags} to use the file as it is"
    elif is_ci():
        reason = "in CI (CI is set) project files load only from the base ref of the review"
        fix = (f"review against a base (--base <ref> or --pr <n>), or pass --config-base-ref "
               f"<ref> to read a commit you trust; {trust_flags} uses the working-tree file")
    elif request.diff is not None:
        reason = "a --diff input may come from anywhere (trust mode untrusted-head)"
        fix = (f"commit it and add --config-base-ref HEAD to read the committed copy, or pass "
               f"{trust_flags} to use the working-tree file as it is")
    else:
        reason = "trust mode untrusted-head"
        fix = f"pass --config-base-ref <ref>, or {trust_flags}"
    return f"{PREFIX}{files} not read: {reason}; {fix}."


def _uncommitted_config_notice(trust: TrustContext, proposed: ProposedChanges) -> str | None:
    """base-ref mode: the working-tree ``.mmr.yaml`` is not what the trusted ref holds."""
    if trust.flags.trust_project_config or proposed.config_file_changed:
        return None  # read as it is, or the ratification gate speaks about it
    if trust.compared_with is not None:
        return None  # the branch warning already says the merge base's copy is read
    text = _work_tree_config(trust.project_root)
    committed = trust.project_config_text
    if text is None or text == committed:
        return None
    ref = trust.trusted_ref or "the trusted ref"
    where = "is not there" if committed is None else "differs"
    return (f"{PREFIX}the working-tree {PROJECT_CONFIG_NAME} is not read: this review reads "
            f"it from {ref}, where it {where}; commit it (and merge it to the default branch), "
            "or pass --trust-project-config to use it for this run.")
