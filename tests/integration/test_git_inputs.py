"""Diff input resolution and the git/gh layer against real repositories."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from mmr import git
from mmr.diff.inputs import (
    EMPTY_DIFF_MESSAGE,
    DiffRequest,
    check_reviewable,
    resolve_diff,
)
from mmr.errors import DiffError, GitError
from mmr.unidiff.sections import exclude_sections
from tests.integration.git_repo_builder import FakeGh, GitRepo, install_fake_gh, path_without_git

PR_DIFF = """\
diff --git a/src/app.py b/src/app.py
--- a/src/app.py
+++ b/src/app.py
@@ -1 +1 @@
-old
+new
diff --git a/secrets/token.txt b/secrets/token.txt
--- a/secrets/token.txt
+++ b/secrets/token.txt
@@ -1 +1 @@
-a
+b
"""


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    return GitRepo.create(tmp_path / "repo", {"src/app.py": "one\n", "README": "readme\n"})


@pytest.fixture
def gh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeGh:
    return install_fake_gh(tmp_path, monkeypatch)


# --- each input mode --------------------------------------------------------------------

def test_working_tree_diff_has_unstaged_changes_but_not_untracked_files(repo: GitRepo) -> None:
    repo.write({"src/app.py": "two\n", "new_untracked.py": "x\n"})
    diff = resolve_diff(DiffRequest(), repo.root)
    assert diff.source == "working"
    assert "+two" in diff.text
    assert "new_untracked" not in diff.text
    assert diff.line_count == len(diff.text.splitlines())
    assert diff.excluded_files == ()


def test_staged_diff_has_only_the_index(repo: GitRepo) -> None:
    repo.stage({"src/app.py": "staged\n"})
    repo.write({"README": "unstaged edit\n"})
    diff = resolve_diff(DiffRequest(staged=True), repo.root)
    assert diff.source == "staged"
    assert "+staged" in diff.text
    assert "README" not in diff.text


def test_base_diff_is_three_dot_since_the_merge_base(repo: GitRepo) -> None:
    repo.branch("feature")
    repo.commit({"src/feature.py": "feature\n"})
    repo.checkout("main")
    repo.commit({"README": "main moved on\n"})
    repo.checkout("feature")
    diff = resolve_diff(DiffRequest(base="main"), repo.root)
    assert diff.source == "base"
    assert "src/feature.py" in diff.text
    assert "main moved on" not in diff.text  # two dots would show main's change reversed


def test_base_with_head_diffs_that_range(repo: GitRepo) -> None:
    first = repo.git("rev-parse", "HEAD").strip()
    repo.commit({"a.txt": "a\n"})
    repo.commit({"b.txt": "b\n"})
    diff = resolve_diff(DiffRequest(base=first, head="HEAD~1"), repo.root)
    assert "a.txt" in diff.text
    assert "b.txt" not in diff.text


def test_head_without_base_is_ignored(repo: GitRepo) -> None:
    repo.write({"src/app.py": "working\n"})
    diff = resolve_diff(DiffRequest(head="does-not-exist"), repo.root)
    assert diff.source == "working"
    assert "+working" in diff.text


def test_diff_file_and_stdin(repo: GitRepo) -> None:
    (repo.root / "change.patch").write_text(PR_DIFF)
    from_file = resolve_diff(DiffRequest(diff="change.patch"), repo.root)
    from_stdin = resolve_diff(DiffRequest(diff="-"), repo.root,
                              stdin=io.BytesIO(PR_DIFF.encode()))
    assert from_file.text == from_stdin.text == PR_DIFF
    assert from_file.source == "diff"


def test_pr_diff_comes_from_gh(repo: GitRepo, gh: FakeGh) -> None:
    gh.set_diff(PR_DIFF)
    diff = resolve_diff(DiffRequest(pr=7), repo.root)
    assert (diff.source, diff.pr_number, diff.text) == ("pr", 7, PR_DIFF)
    assert gh.calls() == [["pr", "diff", "7", "--color", "never"]]


def test_priority_diff_then_pr_then_staged_then_base(repo: GitRepo, gh: FakeGh) -> None:
    gh.set_diff(PR_DIFF.replace("new", "from-gh"))
    (repo.root / "x.patch").write_text(PR_DIFF)
    repo.stage({"src/app.py": "staged\n"})
    everything = DiffRequest(diff="x.patch", pr=3, staged=True, base="main")
    assert resolve_diff(everything, repo.root).source == "diff"
    assert gh.calls() == []
    assert resolve_diff(DiffRequest(pr=3, staged=True, base="main"), repo.root).source == "pr"
    assert resolve_diff(DiffRequest(staged=True, base="main"), repo.root).source == "staged"


# --- unusual content --------------------------------------------------------------------

def test_binary_files_and_invalid_utf8_pass_through(repo: GitRepo) -> None:
    repo.commit({"logo.png": b"\x89PNG\x00\x01", "latin1.txt": "x\n"})
    repo.write({"logo.png": b"\x89PNG\x00\x02\x03", "latin1.txt": b"caf\xe9\n"})
    diff = resolve_diff(DiffRequest(), repo.root)
    assert "Binary files a/logo.png and b/logo.png differ" in diff.text
    assert "+caf\ufffd" in diff.text


def test_a_diff_of_several_megabytes_is_read_whole(repo: GitRepo) -> None:
    lines = [f"line {i} " + "x" * 60 for i in range(60_000)]
    repo.write({"big.txt": "\n".join(lines) + "\n"})
    repo.git("add", "-N", "big.txt")  # intent-to-add: the working-tree diff shows it
    diff = resolve_diff(DiffRequest(), repo.root)
    assert len(diff.text) > 4_000_000
    assert diff.text.rstrip("\n").endswith(lines[-1])
    assert diff.line_count == 60_000 + 6  # diff, new file, index, ---, +++, @@


@pytest.mark.slow
def test_a_git_diff_over_ten_mebibytes_fails_clearly(repo: GitRepo) -> None:
    repo.write({"huge.txt": ("y" * 99 + "\n") * 110_000})
    repo.git("add", "-N", "huge.txt")
    with pytest.raises(GitError, match=r"exceeds 10 MiB; pass the diff with --diff <file>"):
        resolve_diff(DiffRequest(), repo.root)


# --- errors -----------------------------------------------------------------------------

def test_clean_tree_is_the_empty_diff_error(repo: GitRepo) -> None:
    with pytest.raises(DiffError) as caught:
        resolve_diff(DiffRequest(), repo.root)
    assert str(caught.value) == EMPTY_DIFF_MESSAGE


@pytest.mark.parametrize("content", [b"", b"  \n\t\n"])
def test_empty_or_blank_stdin_is_the_empty_diff_error(tmp_path: Path, content: bytes) -> None:
    with pytest.raises(DiffError, match="No diff content found"):
        resolve_diff(DiffRequest(diff="-"), tmp_path, stdin=io.BytesIO(content))


def test_dev_null_is_the_empty_diff_error(tmp_path: Path) -> None:
    with pytest.raises(DiffError, match="No diff content found"):
        resolve_diff(DiffRequest(diff="/dev/null"), tmp_path)


def test_missing_or_directory_diff_file_names_the_path(tmp_path: Path) -> None:
    with pytest.raises(DiffError, match=r"--diff file not found: nope\.patch"):
        resolve_diff(DiffRequest(diff="nope.patch"), tmp_path)
    (tmp_path / "adir").mkdir()
    with pytest.raises(DiffError, match=r"is a directory.*adir"):
        resolve_diff(DiffRequest(diff="adir"), tmp_path)


def test_diff_file_outside_a_repository_works(tmp_path: Path) -> None:
    (tmp_path / "c.patch").write_text(PR_DIFF)
    assert resolve_diff(DiffRequest(diff="c.patch"), tmp_path).text == PR_DIFF


@pytest.mark.parametrize("request_", [DiffRequest(), DiffRequest(staged=True),
                                      DiffRequest(base="main")])
def test_git_sources_outside_a_repository_fail_clearly(tmp_path: Path,
                                                       request_: DiffRequest) -> None:
    with pytest.raises(GitError, match=r"git diff failed: not a git repository .*--diff <file>"):
        resolve_diff(request_, tmp_path)


def test_unknown_ref_is_named(repo: GitRepo) -> None:
    with pytest.raises(GitError, match=r"unknown git ref 'nope' for --base"):
        resolve_diff(DiffRequest(base="nope"), repo.root)
    with pytest.raises(GitError, match=r"unknown git ref 'gone' for --head"):
        resolve_diff(DiffRequest(base="main", head="gone"), repo.root)


def test_a_ref_that_looks_like_an_option_is_refused(repo: GitRepo, tmp_path: Path) -> None:
    target = tmp_path / "written-by-git"
    with pytest.raises(GitError, match="cannot start with '-'"):
        resolve_diff(DiffRequest(base=f"--output={target}"), repo.root)
    assert not target.exists()


def test_git_missing_from_path_names_git(repo: GitRepo, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", path_without_git(tmp_path))
    with pytest.raises(GitError, match=r"'git' not found on PATH"):
        resolve_diff(DiffRequest(), repo.root)


def test_gh_missing_from_path_names_gh(repo: GitRepo, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", path_without_git(tmp_path))
    with pytest.raises(GitError, match=r"'gh' not found on PATH \(needed for --pr\)"):
        resolve_diff(DiffRequest(pr=5), repo.root)


def test_gh_failure_carries_its_message(repo: GitRepo, gh: FakeGh) -> None:
    with pytest.raises(GitError, match=r"gh pr diff 9 failed: GraphQL: Could not resolve .*"
                                       r"gh auth status"):
        resolve_diff(DiffRequest(pr=9), repo.root)


# --- diff_exclude and the run budget ----------------------------------------------------

SECRET_TREE = {
    "src/ok.py": "ok\n", "secrets/db.txt": "pw\n", "keys/server.pem": "pem\n",
    "config/my_secret_file.yml": "s\n", "local_secrets/a/b.txt": "x\n", "id.key": "k\n",
    "docs/keyboard.md": "kb\n", "src/notsecret.py": "n\n",
}
RM2_PATTERNS = ["secrets/**", "local_secrets/**", "*.pem", "*.key", "*secret*"]


def _changed_tree(repo: GitRepo) -> None:
    repo.commit(SECRET_TREE)
    repo.write({name: content + "changed\n" for name, content in SECRET_TREE.items()
                if content is not None and isinstance(content, str)})


def test_diff_exclude_becomes_pathspecs_for_git_diffs(repo: GitRepo) -> None:
    _changed_tree(repo)
    diff = resolve_diff(DiffRequest(), repo.root, diff_exclude=RM2_PATTERNS)
    assert "src/ok.py" in diff.text and "docs/keyboard.md" in diff.text
    assert "secrets/db.txt" not in diff.text and "server.pem" not in diff.text
    assert sorted(diff.excluded_files) == sorted(
        ["secrets/db.txt", "keys/server.pem", "config/my_secret_file.yml",
         "local_secrets/a/b.txt", "id.key", "src/notsecret.py"])
    assert diff.exclusion_notice == "[mmr] excluded 6 file(s) from the diff by diff_exclude"
    assert diff.line_count == len(diff.text.splitlines())


def test_pathspecs_are_relative_to_the_top_level_from_a_subdirectory(repo: GitRepo) -> None:
    _changed_tree(repo)
    diff = resolve_diff(DiffRequest(), repo.root / "src", diff_exclude=["secrets"])
    assert diff.excluded_files == ("secrets/db.txt",)
    assert "src/ok.py" in diff.text and "secrets/db.txt" not in diff.text


def test_text_rule_agrees_with_git_pathspecs(repo: GitRepo) -> None:
    _changed_tree(repo)
    unfiltered = resolve_diff(DiffRequest(), repo.root).text
    for pattern in [*RM2_PATTERNS, "secrets", "config/", "src/*.py", "*/b.txt"]:
        by_git = resolve_diff(DiffRequest(), repo.root, diff_exclude=[pattern])
        text, dropped = exclude_sections(unfiltered, [pattern])
        assert sorted(dropped) == sorted(by_git.excluded_files), pattern
        assert text == by_git.text, pattern


def test_diff_exclude_applies_to_pr_text(repo: GitRepo, gh: FakeGh) -> None:
    gh.set_diff(PR_DIFF)
    diff = resolve_diff(DiffRequest(pr=1), repo.root, diff_exclude=["secrets/**"])
    assert diff.excluded_files == ("secrets/token.txt",)
    assert "secrets" not in diff.text and "src/app.py" in diff.text


def test_everything_excluded_is_empty_only_after_the_gate(repo: GitRepo) -> None:
    repo.commit({".mmr/acks/" + "a" * 40 + ".json": "{}\n"})
    repo.write({".mmr/acks/" + "a" * 40 + ".json": '{"x": 1}\n'})
    diff = resolve_diff(DiffRequest(), repo.root, diff_exclude=[".mmr"])
    assert diff.is_empty
    # The gate still sees the excluded ack file ...
    assert diff.proposed.ack_files_changed == (".mmr/acks/" + "a" * 40 + ".json",)
    # ... and the run then stops on the empty diff.
    with pytest.raises(DiffError, match="No diff content found"):
        check_reviewable(diff, None)


def test_run_budget(repo: GitRepo) -> None:
    repo.write({"src/app.py": "a\nb\nc\n"})
    diff = resolve_diff(DiffRequest(), repo.root)
    check_reviewable(diff, diff.line_count)
    with pytest.raises(DiffError) as caught:
        check_reviewable(diff, diff.line_count - 1)
    assert str(caught.value) == (
        f"diff too large: {diff.line_count} lines > {diff.line_count - 1}; "
        "raise --max-diff-lines or defaults.max_diff_lines")


# --- the git layer never writes ---------------------------------------------------------

def test_reading_diffs_never_changes_the_work_tree_or_the_index(repo: GitRepo) -> None:
    repo.stage({"README": "staged\n"})
    repo.write({"src/app.py": "changed\n"})

    def snapshot() -> tuple[str, str, bytes, bytes]:
        return (repo.git("status", "--porcelain"), repo.git("ls-files", "-s"),
                (repo.root / "src/app.py").read_bytes(), (repo.root / "README").read_bytes())

    before = snapshot()
    resolve_diff(DiffRequest(), repo.root, diff_exclude=["*.md"])
    resolve_diff(DiffRequest(staged=True), repo.root)
    assert snapshot() == before


def test_git_helpers(repo: GitRepo) -> None:
    first = repo.git("rev-parse", "HEAD").strip()
    repo.branch("topic")
    repo.commit({"t.txt": "t\n"})
    assert git.merge_base("main", "topic", repo.root) == first
    assert git.ref_exists("topic", repo.root) and not git.ref_exists("nope", repo.root)
    assert not git.ref_exists("--all", repo.root)
    assert git.show_toplevel(repo.root / "src").resolve() == repo.root.resolve()
    assert git.is_inside_work_tree(repo.root / "src")
    assert git.show_file("main", "./README", repo.root / "src") == "readme\n"
    with pytest.raises(GitError, match="refusing"):
        git.show_file("main", "../etc/passwd", repo.root)
    names = [entry.path for entry in git.list_tree("topic", "src", repo.root / "src")]
    assert names == ["src/app.py"]


def test_is_inside_work_tree_is_false_outside_and_without_git(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert not git.is_inside_work_tree(tmp_path)
    monkeypatch.setenv("PATH", path_without_git(tmp_path))
    assert not git.is_inside_work_tree(tmp_path)


def test_pr_base_branch(repo: GitRepo, gh: FakeGh) -> None:
    gh.set_view('{"baseRefName": "release/1.2"}\n')
    assert git.pr_base_branch(4, repo.root) == "release/1.2"
    assert gh.calls() == [["pr", "view", "4", "--json", "baseRefName"]]
    for printed in ("not json", "[]"):
        gh.set_view(printed)
        with pytest.raises(GitError, match="other than a JSON object"):
            git.pr_base_branch(4, repo.root)
        with pytest.raises(GitError, match="other than a JSON object"):
            git.pr_head(4, repo.root)
    gh.set_view('{"baseRefName": ""}')
    with pytest.raises(GitError, match="no base branch"):
        git.pr_base_branch(4, repo.root)
