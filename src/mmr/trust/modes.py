"""Trust modes: where project config and acks may come from (docs/trust.md).

A review often runs on content someone else controls, and two project files in that
content could subvert the reviewer: ``.mmr.yaml`` (channels run commands) and
``.mmr/acks/`` (acks suppress findings). Each run is classified into ``base-ref``
(read them from a trusted git ref), ``untrusted-head`` or ``non-git`` (do not read
them), unless an operator flag opts into the working tree.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from mmr import git
from mmr.config.loaded import ProjectText
from mmr.config.paths import find_project_root
from mmr.diff.inputs import DiffRequest
from mmr.diff.proposed import ProposedChanges
from mmr.errors import GitError
from mmr.models import TrustMode
from mmr.trust.branch import NO_DEFAULT_BRANCH, branch_drift, has_project_files
from mmr.trust.trusted_files import read_project_config_at_ref, read_project_config_in_work_tree

PrBaseResolver = Callable[[int, Path], str]

_CI_FLAG_VARIABLES = ("GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE", "TF_BUILD", "JENKINS_URL",
                      "TEAMCITY_VERSION")
CONFIG_WARNING = "[mmr] warning: --trust-project-config is honoring the working-tree .mmr.yaml"
ACKS_WARNING = "[mmr] warning: --trust-project-acks is honoring working-tree .mmr/acks/"
ACCEPT_ACKS_WARNING = "[mmr] warning: --accept-new-acks is honoring working-tree .mmr/acks/"
NON_GIT_SUFFIX = " (non-git: no base ref to compare against)."
PREFER_REF_SUFFIX = "; prefer --config-base-ref <ref> for a trusted source."


def is_ci(env: Mapping[str, str] | None = None) -> bool:
    """Whether the environment looks like CI; errs towards yes."""
    env = os.environ if env is None else env
    ci = env.get("CI")
    if ci is not None and ci != "" and ci.lower() not in ("false", "0"):
        return True
    return any(env.get(name) for name in _CI_FLAG_VARIABLES)


def is_git_repository(cwd: Path) -> bool:
    """Git says ``cwd`` is in a work tree, or (advisory) a ``.git`` entry sits above it."""
    return git.is_inside_work_tree(cwd) or git.find_dot_git_ancestor(cwd) is not None


@dataclass(frozen=True)
class TrustFlags:
    """The operator's trust flags; an attacker cannot pass them, so they are trusted."""

    config_base_ref: str | None = None
    trust_project_config: bool = False
    trust_project_acks: bool = False
    accept_new_acks: bool = False


@dataclass(frozen=True)
class TrustClassification:
    """A trust mode; ``base_ref`` is set exactly in ``base-ref`` mode."""

    mode: TrustMode
    base_ref: str | None = None
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if (self.mode == "base-ref") != (self.base_ref is not None):
            raise ValueError("base-ref mode carries a base_ref, and only it does")


def _untrusted(note: str) -> TrustClassification:
    return TrustClassification("untrusted-head", notes=(note,))


def _from_ref(ref: str, flag: str) -> TrustClassification:
    if git.is_safe_ref(ref):
        return TrustClassification("base-ref", ref)
    return _untrusted(f"[mmr] warning: {flag} {ref!r} is not a plain git ref, so project config "
                      "and acks are not read from it (trust mode untrusted-head).")


def classify_trust_mode(cwd: Path, request: DiffRequest, flags: TrustFlags, *,
                        resolve_pr_base: PrBaseResolver | None = None) -> TrustClassification:
    """Apply the trust rules in order; the first that applies decides."""
    if flags.config_base_ref:
        return _classify_config_base_ref(flags.config_base_ref, cwd)
    if not is_git_repository(cwd):
        return TrustClassification("non-git")
    if request.pr is not None:
        return _classify_pr(request.pr, cwd, resolve_pr_base or git.pr_base_branch)
    if request.base:
        return _from_ref(request.base, "--base")
    ci = is_ci()
    # --staged is trusted locally (it beats --diff); --diff may come from anywhere.
    untrusted = ci if request.staged else (ci or request.diff is not None)
    if untrusted:
        return TrustClassification("untrusted-head")
    return TrustClassification("base-ref", "HEAD")


def _classify_config_base_ref(ref: str, cwd: Path) -> TrustClassification:
    if git.is_safe_ref(ref) and not is_git_repository(cwd):
        # MMR 4.0.1 reports base-ref here although nothing can be read.
        return TrustClassification("non-git", notes=(
            f"[mmr] warning: --config-base-ref {ref} cannot be read outside a git "
            "repository; no project config or acks will load (trust mode non-git).",))
    return _from_ref(ref, "--config-base-ref")


def _classify_pr(number: int, cwd: Path, resolver: PrBaseResolver) -> TrustClassification:
    # --pr beats --base: a stray, possibly attacker-suggested --base is ignored for trust.
    try:
        base = resolver(number, cwd)
    except git.ToolNotFoundError:
        # No gh: reading the PR's diff fails next with this very message; say it once.
        return TrustClassification("untrusted-head")
    except (GitError, OSError, ValueError) as exc:
        return _untrusted(f"[mmr] warning: could not read the base branch of PR #{number} "
                          f"({exc}); project config and acks will not load (trust mode "
                          "untrusted-head).")
    return _from_ref(base, f"the base branch of PR #{number}")


@dataclass(frozen=True)
class TrustContext:
    """Everything the review needs from the trust decision, and what the job persists."""

    mode: TrustMode
    trusted_ref: str | None
    project_root: Path
    flags: TrustFlags
    project_config: ProjectText | None
    warnings: tuple[str, ...]
    #: What the checked-out branch changed since its merge base (it needs ratification).
    branch_proposed: ProposedChanges = field(default_factory=ProposedChanges)
    #: The default branch ``branch_proposed`` was measured against.
    compared_with: str | None = None

    @property
    def project_config_text(self) -> str | None:
        return None if self.project_config is None else self.project_config.text

    def review_controls(self, max_rounds: int) -> dict[str, object]:
        """The job's ``review_controls``, in MMR 4.0.1's key order."""
        controls: dict[str, object] = {
            "max_rounds": max_rounds,
            "accept_new_acks": self.flags.accept_new_acks,
            "trust_project_acks": self.flags.trust_project_acks or self.flags.accept_new_acks,
            "trust_project_config": self.flags.trust_project_config,
        }
        if self.mode == "base-ref" and self.trusted_ref is not None:
            controls["config_base_ref"] = self.trusted_ref
        return controls


def resolve_trust(cwd: Path, request: DiffRequest, flags: TrustFlags) -> TrustContext:
    """Classify the run, collect its stderr warnings and read the trusted project config."""
    found = classify_trust_mode(cwd, request, flags)
    root = find_project_root(cwd)
    warnings = list(found.notes)
    branch = ProposedChanges()
    compared_with: str | None = None
    if found.base_ref == "HEAD" and not flags.config_base_ref and request.base is None:
        drift = branch_drift(root)
        if drift is None:
            warnings.extend([NO_DEFAULT_BRANCH] if has_project_files(root, "HEAD") else [])
        elif drift.changed:
            found = TrustClassification("base-ref", drift.merge_base, found.notes)
            branch, compared_with = drift.proposed, drift.default_branch
            if not flags.trust_project_config:
                warnings.append(
                    f"[mmr] warning: this branch changed .mmr.yaml or .mmr/acks/ since its "
                    f"merge base with {drift.default_branch} ({drift.merge_base[:12]}); they "
                    "are read from the merge base until ratified (see `mmr explain trust`).")
    # An implicit HEAD is missing only in a repository without commits: not worth a warning.
    # A missing --base is the diff's error too: said once, there, not also as a warning.
    named = found.base_ref is not None and found.base_ref not in ("HEAD", request.base)
    if named and found.base_ref is not None and not git.ref_exists(found.base_ref, root):
        warnings.append(f"[mmr] warning: trusted ref {found.base_ref} does not exist in this "
                        "repository (fetch it first); no project config or acks will be read "
                        "from it.")
    suffix = NON_GIT_SUFFIX if found.mode == "non-git" else PREFER_REF_SUFFIX
    if flags.trust_project_config:
        warnings.append(CONFIG_WARNING + suffix)
    if flags.trust_project_acks:
        warnings.append(ACKS_WARNING + suffix)
    elif flags.accept_new_acks and found.mode != "base-ref":
        warnings.append(ACCEPT_ACKS_WARNING + suffix)  # MMR 4.0.1 is silent here

    config: ProjectText | None = None
    if flags.trust_project_config:
        config, problem = read_project_config_in_work_tree(root)
        warnings.extend([problem] if problem else [])
    elif found.base_ref is not None:
        config = read_project_config_at_ref(root, found.base_ref)
    return TrustContext(mode=found.mode, trusted_ref=found.base_ref, project_root=root,
                        flags=flags, project_config=config, warnings=tuple(warnings),
                        branch_proposed=branch, compared_with=compared_with)
