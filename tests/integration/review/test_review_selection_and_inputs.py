"""``--channels``, diff input, empty diffs and output formats."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes.plugin import FakeCliFactory
from tests.integration.git_repo_builder import GitRepo
from tests.integration.review.conftest import (
    CLEAN,
    RunMmr,
    finding,
    job_ids,
    reply,
    write_user_config,
)

PATCH = ("diff --git a/src/app.py b/src/app.py\n--- a/src/app.py\n+++ b/src/app.py\n"
         "@@ -1 +1,2 @@\n one\n+two\n")


@pytest.fixture
def fakes(fake_cli: FakeCliFactory) -> FakeCliFactory:
    fake_cli("rev1", stdout=CLEAN)
    fake_cli("rev2", stdout=CLEAN)
    write_user_config({"rev1": {"command": "rev1"}, "rev2": {"command": "rev2"},
                       "off": {"command": "rev2", "enabled": False},
                       "base": {"abstract": True, "command": "rev1"},
                       "half": {"flags": ["-x"], "enabled": False}})
    return fake_cli


# --- --channels ---------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("channels", "message"),
    [
        ("rev3", 'Channel "rev3" not found in config; did you mean "rev1"?'),
        ("gemini", 'Channel "gemini" is retired and cannot be dispatched — use "antigravity" '
                   "instead."),
        ("base", 'Channel "base" is abstract and cannot be dispatched'),
        ("half", 'Channel "half" is not fully configured (missing command or kind: http)'),
    ],
)
def test_channels_that_cannot_be_dispatched_exit_1(
        repo: GitRepo, fakes: FakeCliFactory, run_mmr: RunMmr, channels: str,
        message: str) -> None:
    result = run_mmr("review", "--sync", "--channels", channels, cwd=repo.root)
    assert result.code == 1
    assert message in result.err
    assert job_ids() == []


def test_empty_channel_list_exits_1(repo: GitRepo, fakes: FakeCliFactory,
                                    run_mmr: RunMmr) -> None:
    result = run_mmr("review", "--sync", "--channels", "", cwd=repo.root)
    assert result.code == 1
    assert "No channels enabled. Configure channels or pass --channels." in result.err


def test_greedy_comma_and_repeated_channels_dedupe(repo: GitRepo, fakes: FakeCliFactory,
                                                   run_mmr: RunMmr) -> None:
    result = run_mmr("review", "--sync", "--channels", "rev2,rev1", "rev2", "--channels", "off",
                     cwd=repo.root)
    doc = result.json()
    # Explicit lists keep their order and may name a disabled channel.
    assert list(doc["per_channel"]) == ["rev2", "rev1", "off"]
    assert result.code == 0


def test_default_selection_skips_disabled_and_abstract(repo: GitRepo, fakes: FakeCliFactory,
                                                       run_mmr: RunMmr) -> None:
    result = run_mmr("review", "--sync", cwd=repo.root)
    assert list(result.json()["per_channel"]) == ["rev1", "rev2"]


# --- diff input ---------------------------------------------------------------------------

def test_clean_tree_is_an_empty_diff(tmp_path: Path, fakes: FakeCliFactory,
                                     run_mmr: RunMmr) -> None:
    repo = GitRepo.create(tmp_path / "clean", {"a.py": "x\n"})
    result = run_mmr("review", "--sync", cwd=repo.root)
    assert result.code == 1
    assert ("No diff content found. Provide --diff, --pr, --staged, or --base/--head."
            in result.err)
    assert job_ids() == []


def test_whitespace_only_stdin_is_an_empty_diff(repo: GitRepo, fakes: FakeCliFactory,
                                                run_mmr: RunMmr) -> None:
    result = run_mmr("review", "--diff", "-", "--sync", cwd=repo.root, stdin="  \n\n")
    assert result.code == 1
    assert "No diff content found." in result.err


def test_diff_from_stdin_reaches_the_channels(repo: GitRepo, fake_cli: FakeCliFactory,
                                              run_mmr: RunMmr) -> None:
    rev1 = fake_cli("rev1", stdout=CLEAN)
    fake_cli("rev2", stdout=CLEAN)
    write_user_config({"rev1": {"command": "rev1"}, "rev2": {"command": "rev2"}})
    result = run_mmr("review", "--diff", "-", "--sync", cwd=repo.root, stdin=PATCH)
    assert result.code == 0, result.err
    assert result.json()["trust_mode"] == "untrusted-head"
    assert "## Diff\n```diff\n" + PATCH + "\n```" in rev1.last_call()["stdin"]


def test_missing_diff_file_exits_1(repo: GitRepo, fakes: FakeCliFactory,
                                   run_mmr: RunMmr) -> None:
    result = run_mmr("review", "--diff", "nope.patch", cwd=repo.root)
    assert result.code == 1
    assert "nope.patch" in result.err


def test_outside_git_without_a_diff_exits_1(tmp_path: Path, fakes: FakeCliFactory,
                                            run_mmr: RunMmr) -> None:
    result = run_mmr("review", "--sync", cwd=tmp_path)
    assert result.code == 1
    assert result.err.startswith("mmr: error: ")


def test_findings_outside_the_diff_are_dropped(repo: GitRepo, fake_cli: FakeCliFactory,
                                               run_mmr: RunMmr) -> None:
    fake_cli("rev1", stdout=reply(finding(location="elsewhere.py:1"), finding(severity="P3")))
    fake_cli("rev2", stdout=CLEAN)
    write_user_config({"rev1": {"command": "rev1"}, "rev2": {"command": "rev2"}})
    doc = run_mmr("review", "--sync", cwd=repo.root).json()
    assert [f["location"] for f in doc["per_channel"]["rev1"]["findings"]] == ["src/app.py:2"]
    assert doc["verdict"] == "pass"


# --- output formats -----------------------------------------------------------------------

def test_format_markdown(repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    fake_cli("rev1", stdout=reply(finding()))
    fake_cli("rev2", stdout=CLEAN)
    write_user_config({"rev1": {"command": "rev1"}, "rev2": {"command": "rev2"}})
    result = run_mmr("review", "--sync", "--format", "markdown", cwd=repo.root)
    assert result.code == 2
    assert result.out.startswith("## Multi-Model Review — BLOCKED")
    assert "| P1 | src/app.py:2 |" in result.out
    assert "- **rev1:** completed (" in result.out


def test_config_format_is_the_default(repo: GitRepo, fake_cli: FakeCliFactory,
                                      run_mmr: RunMmr) -> None:
    fake_cli("rev1", stdout=CLEAN)
    fake_cli("rev2", stdout=CLEAN)
    write_user_config({"rev1": {"command": "rev1"}, "rev2": {"command": "rev2"}},
                      defaults={"format": "text"})
    text = run_mmr("review", "--sync", cwd=repo.root)
    assert text.out.startswith("MMR PASSED — mmr-")
    flagged = run_mmr("review", "--sync", "--format", "json", cwd=repo.root)
    assert flagged.json()["verdict"] == "pass"


def test_unknown_template_exits_1(repo: GitRepo, fakes: FakeCliFactory, run_mmr: RunMmr) -> None:
    result = run_mmr("review", "--dry-run", "--template", "api", cwd=repo.root)
    assert result.code == 1
    assert 'Unknown template "api". Known templates: none are defined' in result.err


def test_template_criteria_and_run_wide_diff_exclude(repo: GitRepo, fake_cli: FakeCliFactory,
                                                     run_mmr: RunMmr) -> None:
    repo.write({"secrets/token.txt": "hunter2\n"})
    repo.git("add", "-N", "secrets/token.txt")
    fake_cli("rev1", stdout=CLEAN)
    write_user_config({"rev1": {"command": "rev1"}},
                      defaults={"diff_exclude": ["secrets/**"]},
                      templates={"api": {"criteria": ["Version every endpoint"]}})
    result = run_mmr("review", "--dry-run", "--template", "api", cwd=repo.root)
    assert result.code == 0, result.err
    assert "## Template Criteria\n- Version every endpoint" in result.out
    assert "hunter2" not in result.out
    assert "[mmr] excluded 1 file(s) from the diff by diff_exclude" in result.err
