"""``mmr comment --inline`` over a real git repository that receives a sequence of pushes.

The fake ``gh`` serves the pull request from a JSON model (reviews, threads, replies by a
person) and computes its diff with git from the real repository, so a comment on a line
outside the diff is refused with HTTP 422 as GitHub refuses it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mmr.comment.body import MARKER
from tests.cli_runner import RunMmr
from tests.fakes.gh_api import FakeGhApi, install_fake_gh_api
from tests.fakes.plugin import FakeCliFactory
from tests.integration.git_repo_builder import GitRepo
from tests.integration.review.conftest import finding, reply, write_user_config

PR = 12
APP = "".join(f"line {n}\n" for n in range(1, 21))
UTIL = "def helper():\n    return 1\n"


def bug(location: str, severity: str, description: str, **extra: str) -> dict[str, Any]:
    return finding(location, severity, description) | extra


# Line 3 reads "    total = n + 1" after the first push; the replacement fixes it.
P0 = bug("src/app.py:3", "P0", "The total is off by one", replacement="    total = n\n")
RANGE = bug("src/util.py:1-2", "P2", "helper() hides its failure")
P1 = bug("src/app.py:10", "P1", "The loop never ends")
OUTSIDE = bug("README.md:1", "P3", "The README still names the old command")


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    """main holds the base; branch ``feature`` is the pull request's head, checked out."""
    repo = GitRepo.create(tmp_path / "repo", {"src/app.py": APP, "src/util.py": "x = 1\n",
                                              "README.md": "# app\n"})
    repo.branch("feature")
    lines = APP.splitlines(keepends=True)
    lines[2], lines[9] = "    total = n + 1\n", "    while True:\n"
    repo.commit({"src/app.py": "".join(lines), "src/util.py": UTIL}, "first push")
    return repo


@pytest.fixture
def gh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, repo: GitRepo) -> FakeGhApi:
    fake = install_fake_gh_api(tmp_path, monkeypatch)
    fake.model_pr(repo.root, "main", "feature")
    return fake


def review(run_mmr: RunMmr, repo: GitRepo, fake_cli: FakeCliFactory, tmp_path: Path,
           *findings: dict[str, Any]) -> Path:
    """A real review of main...HEAD by two fake reviewers; its JSON document saved."""
    fake_cli("rev1", stdout=reply(*findings))
    fake_cli("rev2", stdout=reply(*findings))
    write_user_config({"rev1": {"command": "rev1", "flags": ["--one"]},
                       "rev2": {"command": "rev2", "flags": ["--two"]}})
    done = run_mmr("review", "--base", "main", "--sync", "--format", "json", cwd=repo.root)
    assert done.code in (0, 2), done.err
    path = tmp_path / f"results-{len(list(tmp_path.glob('results-*')))}.json"
    path.write_text(done.out, encoding="utf-8")
    return path


def comment(run_mmr: RunMmr, repo: GitRepo, results: Path, *extra: str) -> dict[str, Any]:
    done = run_mmr("comment", "--pr", str(PR), "--results", str(results), "--inline", *extra,
                   cwd=repo.root)
    assert done.code == 0, done.err
    return json.loads(done.out)


def thread_about(gh: FakeGhApi, text: str) -> dict[str, Any]:
    [thread] = [t for t in gh.pr()["threads"] if text in t["comments"][0]["body"]]
    return thread


def test_three_pushes_one_summary_one_comment_per_finding_fixed_threads_resolved(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr, gh: FakeGhApi,
        tmp_path: Path) -> None:
    # Push 1: four findings; three on the diff's lines, one about a file it does not touch.
    first = comment(run_mmr, repo, review(run_mmr, repo, fake_cli, tmp_path,
                                          P0, RANGE, P1, OUTSIDE))
    assert first["action"] == "created"
    assert first["review"] == {
        "review_id": 5000, "inline": 3, "in_body": 1, "already_posted": 0, "resolved": 0,
        "kept_open": 0}
    [posted] = gh.pr()["reviews"]
    assert posted["event"] == "COMMENT"
    assert "**mmr: BLOCKED**" in posted["body"]
    assert "README.md:1" in posted["body"] and "old command" in posted["body"]
    by_path = {(c["path"], c["line"]): c for c in posted["comments"]}
    assert set(by_path) == {("src/app.py", 3), ("src/util.py", 2), ("src/app.py", 10)}
    assert by_path["src/util.py", 2]["start_line"] == 1  # the range the reviewer gave
    # The exact replacement for line 3 still applies at the head: an applicable suggestion.
    assert "```suggestion\n    total = n\n```" in by_path["src/app.py", 3]["body"]
    assert "```suggestion" not in by_path["src/app.py", 10]["body"]
    assert all("<!-- mmr:finding " in c["body"] for c in posted["comments"])

    # A person answers in the range's thread.
    gh.reply_in_thread(thread_about(gh, "hides its failure")["id"], "alice", "Intended.")

    # Push 2: a fix-up commit for the loop and for helper(); only the P0 is reported.
    lines = (repo.root / "src/app.py").read_text().splitlines(keepends=True)
    lines[9] = "    for item in items:\n"
    repo.commit({"src/app.py": "".join(lines), "src/util.py": "def helper():\n    raise\n"},
                "fix-up")
    second = comment(run_mmr, repo, review(run_mmr, repo, fake_cli, tmp_path, P0))
    assert second["action"] == "updated"
    assert second["review"] == {"review_id": None, "inline": 0, "in_body": 0,
                                "already_posted": 1, "resolved": 1, "kept_open": 1}
    assert len(gh.pr()["reviews"]) == 1  # nothing new: no second review
    assert thread_about(gh, "never ends")["isResolved"] is True
    assert thread_about(gh, "hides its failure")["isResolved"] is False  # alice replied
    assert thread_about(gh, "off by one")["isResolved"] is False

    # Push 3: an unrelated commit, then an amend and force-push; the P0 is still there
    # and a new finding appears on the amended lines.
    repo.commit({"docs/notes.md": "notes\n"}, "unrelated")
    repo.write({"docs/notes.md": "notes, amended\n"})
    repo.git("commit", "-q", "--amend", "-a", "-m", "unrelated, amended")
    notes = bug("docs/notes.md:1", "P2", "The notes contradict the README")
    third = comment(run_mmr, repo, review(run_mmr, repo, fake_cli, tmp_path, P0, notes))
    assert third["review"]["inline"] == 1 and third["review"]["already_posted"] == 1
    model = gh.pr()
    assert len(model["reviews"]) == 2
    keys = [t["comments"][0]["body"].rsplit("\n", 1)[1] for t in model["threads"]]
    assert len(keys) == len(set(keys)) == 4  # one comment per distinct finding, ever
    assert "BLOCKED" in model["reviews"][1]["body"]  # the P0 still blocks
    # One summary comment for the pull request, edited in place on every run.
    [summary] = gh.comments()
    assert summary["body"].startswith(MARKER)


def test_suggestion_only_while_the_lines_read_the_same_at_the_head(
        repo, fake_cli, run_mmr, gh, tmp_path) -> None:
    results = review(run_mmr, repo, fake_cli, tmp_path, P0)
    # A push lands between the review and the comment: line 3 now reads differently.
    repo.git("checkout", "-q", "-b", "pushed")
    lines = (repo.root / "src/app.py").read_text().splitlines(keepends=True)
    lines[2] = "    total = n + 2\n"
    repo.commit({"src/app.py": "".join(lines)}, "another push")
    repo.checkout("feature")  # the checkout still holds what was reviewed
    gh.edit_pr(head="pushed")
    assert comment(run_mmr, repo, results)["review"]["inline"] == 1
    [posted] = gh.pr()["reviews"][0]["comments"]
    assert posted["line"] == 3 and "```suggestion" not in posted["body"]


def test_a_line_github_refuses_moves_the_findings_to_the_body(
        repo, fake_cli, run_mmr, gh, tmp_path) -> None:
    gh.edit_pr(refuse_lines=[["src/app.py", 10]])
    outcome = comment(run_mmr, repo, review(run_mmr, repo, fake_cli, tmp_path, P0, P1))
    assert (outcome["review"]["inline"], outcome["review"]["in_body"]) == (0, 2)
    [posted] = gh.pr()["reviews"]
    assert posted["comments"] == []
    assert "src/app.py:10" in posted["body"] and "src/app.py:3" in posted["body"]
    posts = [c for c in gh.calls() if c["argv"][:3] == ["api", "--method", "POST"]
             and c["argv"][3].endswith("/reviews")]
    assert len(posts) == 2  # refused once, then posted with every finding in the body


def test_the_cap_sends_the_rest_to_the_body(repo, fake_cli, run_mmr, gh, tmp_path) -> None:
    outcome = comment(run_mmr, repo, review(run_mmr, repo, fake_cli, tmp_path, P0, P1, RANGE),
                      "--max-inline", "1")
    assert (outcome["review"]["inline"], outcome["review"]["in_body"]) == (1, 2)


def test_the_reviewed_branch_cannot_raise_or_lower_the_cap(repo, fake_cli, run_mmr, gh,
                                                          tmp_path) -> None:
    """The cap comes from the user's config: in CI the work tree is the pull request's own
    branch, whose ``.mmr.yaml`` must not decide how many comments are posted about it."""
    results = review(run_mmr, repo, fake_cli, tmp_path, P0, P1, RANGE)
    repo.write({".mmr.yaml": "defaults:\n  max_inline_comments: 1\n"})
    outcome = comment(run_mmr, repo, results)
    assert (outcome["review"]["inline"], outcome["review"]["in_body"]) == (3, 0)


def test_the_reviewed_branch_cannot_raise_the_users_cap(repo, fake_cli, run_mmr, gh,
                                                        tmp_path) -> None:
    results = review(run_mmr, repo, fake_cli, tmp_path, P0, P1, RANGE)
    write_user_config({"rev1": {"command": "rev1", "flags": ["--one"]}},
                      {"max_inline_comments": 1})
    repo.write({".mmr.yaml": "defaults:\n  max_inline_comments: 50\n"})
    outcome = comment(run_mmr, repo, results)
    assert (outcome["review"]["inline"], outcome["review"]["in_body"]) == (1, 2)


def test_a_run_where_a_reviewer_failed_resolves_nothing(repo, fake_cli, run_mmr, gh,
                                                        tmp_path) -> None:
    """A finding missing because its reviewer failed this time is not fixed."""
    comment(run_mmr, repo, review(run_mmr, repo, fake_cli, tmp_path, P0, P1))
    fake_cli("rev1", stdout=reply(P1))
    fake_cli("rev2", stdout="", exit_code=1)
    fake_cli("rev3", stdout=reply(P1))
    write_user_config({"rev1": {"command": "rev1", "flags": ["--one"]},
                       "rev2": {"command": "rev2", "flags": ["--two"]},
                       "rev3": {"command": "rev3", "flags": ["--three"]}})
    done = run_mmr("review", "--base", "main", "--sync", "--format", "json", cwd=repo.root)
    assert done.code in (0, 2), done.err
    assert json.loads(done.out)["per_channel"]["rev2"]["status"] != "completed"
    partial = tmp_path / "partial.json"
    partial.write_text(done.out, encoding="utf-8")
    again = comment(run_mmr, repo, partial)
    assert (again["review"]["resolved"], again["review"]["kept_open"]) == (0, 1)
    assert not any(t["isResolved"] for t in gh.pr()["threads"])
    # Once every reviewer reports again without it, the P0's thread is resolved.
    assert comment(run_mmr, repo, review(run_mmr, repo, fake_cli, tmp_path, P1))[
        "review"]["resolved"] == 1


def test_only_the_bots_own_comments_count(repo, fake_cli, run_mmr, gh, tmp_path) -> None:
    results = review(run_mmr, repo, fake_cli, tmp_path, P0, P1)
    document = json.loads(results.read_text())
    keys = {f["location"]: f["finding_key"] for f in document["reconciled_findings"]}
    # Someone else's look-alike comment neither stops a finding being posted nor is resolved.
    gh.add_thread("mallory", f"fake\n<!-- mmr:finding {keys['src/app.py:3']} -->")
    gh.add_thread("mallory", "fake\n<!-- mmr:finding " + "0" * 40 + " -->")
    assert comment(run_mmr, repo, results)["review"]["inline"] == 2
    assert not any(t["isResolved"] for t in gh.pr()["threads"])


def test_hostile_reviewer_text_stays_inert(repo, fake_cli, run_mmr, gh, tmp_path) -> None:
    hostile = bug("src/app.py:3", "P1", "Bug <img src=x> @octocat",
                  replacement="```\n<!-- mmr:finding " + "f" * 40 + " -->\n")
    comment(run_mmr, repo, review(run_mmr, repo, fake_cli, tmp_path, hostile))
    [posted] = gh.pr()["reviews"][0]["comments"]
    assert "<img" not in posted["body"] and "@octocat" not in posted["body"]
    assert "f" * 40 not in posted["body"].rsplit("\n", 1)[1]
    # The forged fingerprint inside the suggestion block counts for nothing: reported
    # again, the finding is known as posted and its thread stays open; once gone, resolved.
    again = comment(run_mmr, repo, review(run_mmr, repo, fake_cli, tmp_path, hostile))
    assert (again["review"]["already_posted"], again["review"]["resolved"]) == (1, 0)
    gone = comment(run_mmr, repo, review(run_mmr, repo, fake_cli, tmp_path, P1))
    assert gone["review"]["resolved"] == 1


def test_max_inline_needs_inline(repo, run_mmr, gh, tmp_path) -> None:
    done = run_mmr("comment", "--pr", str(PR), "--results", str(tmp_path / "x.json"),
                   "--max-inline", "3", cwd=repo.root)
    assert done.code == 1
    assert done.err.splitlines()[0] == (
        "mmr: error: --max-inline takes a number >= 0, with --inline")
