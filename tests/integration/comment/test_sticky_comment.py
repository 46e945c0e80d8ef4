"""``mmr comment``: one sticky pull-request comment, created once and then edited in place."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mmr.comment.body import MARKER, read_state
from tests.cli_runner import RunMmr
from tests.fakes.gh_api import FakeGhApi, install_fake_gh_api
from tests.fakes.plugin import FakeCliFactory
from tests.integration.git_repo_builder import GitRepo
from tests.integration.review.conftest import CLEAN, finding, reply, write_user_config

PR = 47
LOOP = finding()
PRINT = finding("src/app.py:3", "P2", "Prints inside the loop")


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    """A repository whose work tree changes ``src/app.py`` (unstaged)."""
    repo = GitRepo.create(tmp_path / "repo", {"src/app.py": "def f(n):\n    return n\n"})
    repo.write({"src/app.py": "def f(n):\n    for i in range(n + 1):\n        print(i)\n"})
    return repo


@pytest.fixture
def gh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeGhApi:
    return install_fake_gh_api(tmp_path, monkeypatch)


def review(run_mmr: RunMmr, repo: GitRepo, fake_cli: FakeCliFactory, tmp_path: Path,
           *findings: dict[str, str]) -> Path:
    """A real review against two fake reviewers; its JSON document saved to a file."""
    fake_cli("rev1", stdout=reply(*findings) if findings else CLEAN)
    fake_cli("rev2", stdout=reply(*findings) if findings else CLEAN)
    write_user_config({"rev1": {"command": "rev1"}, "rev2": {"command": "rev2"}})
    done = run_mmr("review", "--sync", "--format", "json", cwd=repo.root)
    assert done.code in (0, 2), done.err
    path = tmp_path / f"results-{len(list(tmp_path.glob('results-*')))}.json"
    path.write_text(done.out, encoding="utf-8")
    return path


def post(run_mmr: RunMmr, repo: GitRepo, results: Path) -> dict[str, object]:
    done = run_mmr("comment", "--pr", str(PR), "--results", str(results), cwd=repo.root)
    assert done.code == 0, done.err
    return json.loads(done.out)


def test_first_run_creates_then_later_runs_update_the_same_comment(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr, gh: FakeGhApi,
        tmp_path: Path) -> None:
    first = post(run_mmr, repo, review(run_mmr, repo, fake_cli, tmp_path, LOOP, PRINT))
    assert first["action"] == "created"
    [comment] = gh.comments()
    assert comment["body"].startswith(MARKER + "\n## Multi-Model Review — BLOCKED")
    assert "Off-by-one in the loop bound" in comment["body"]
    assert len(read_state(comment["body"])) == 2
    assert gh.methods() == ["GET", "POST"]
    # The body went over stdin, never on the command line.
    post_call = gh.calls()[1]
    assert "--input" in post_call["argv"]
    assert json.loads(post_call["stdin"])["body"] == comment["body"]

    # The loop bug is fixed: the same comment is edited, and the fix is shown as resolved.
    second = post(run_mmr, repo, review(run_mmr, repo, fake_cli, tmp_path, PRINT))
    assert (second["action"], second["comment_id"], second["resolved"]) == (
        "updated", first["comment_id"], 1)
    [comment] = gh.comments()
    body = comment["body"]
    assert "### Resolved since the last run" in body
    assert "~~P1 `src/app.py:2` — Off-by-one in the loop bound~~" in body
    assert gh.methods() == ["GET", "POST", "GET", "PATCH"]

    # Nothing left: the comment becomes a pass; the second fix is listed as resolved.
    third = post(run_mmr, repo, review(run_mmr, repo, fake_cli, tmp_path))
    assert (third["action"], third["resolved"]) == ("updated", 1)
    [comment] = gh.comments()
    assert "## Multi-Model Review — PASSED" in comment["body"]
    assert "Prints inside the loop~~" in comment["body"]
    assert read_state(comment["body"]) == {}


def test_other_comments_are_left_alone(repo, fake_cli, run_mmr, gh, tmp_path) -> None:
    gh.add_comment(PR, "LGTM, but see the mmr report")
    gh.add_comment(PR + 1, MARKER + "\nanother pull request's report")
    assert post(run_mmr, repo, review(run_mmr, repo, fake_cli, tmp_path, LOOP))["action"] == (
        "created")
    bodies = [c["body"] for c in gh.comments()]
    assert bodies[:2] == ["LGTM, but see the mmr report",
                          MARKER + "\nanother pull request's report"]
    assert len(bodies) == 3


def test_reviewer_text_cannot_close_the_hidden_state(repo, fake_cli, run_mmr, gh, tmp_path):
    hostile = finding(description="Bug --> <!-- mmr:state e30= --> @octocat #1 <img src=x>")
    post(run_mmr, repo, review(run_mmr, repo, fake_cli, tmp_path, hostile))
    post(run_mmr, repo, review(run_mmr, repo, fake_cli, tmp_path))
    body = gh.comments()[0]["body"]
    resolved = body.split("### Resolved since the last run", 1)[1]
    # The look-alike state in the first report did not replace the real one: the finding
    # is listed as resolved, with its text made inert.
    assert "~~P1 `src/app.py:2` — Bug --&gt; &lt;!-- mmr:state e30= --&gt;" in resolved
    assert "<img" not in resolved and "&lt;img" in resolved
    assert "@octocat" not in resolved  # no mention pings anyone


def test_a_read_only_token_is_one_clear_error(repo, fake_cli, run_mmr, gh, tmp_path, *,
                                              monkeypatch) -> None:
    results = review(run_mmr, repo, fake_cli, tmp_path, LOOP)
    monkeypatch.setenv("FAKE_GH_STATUS", "403")
    done = run_mmr("comment", "--pr", str(PR), "--results", str(results), cwd=repo.root)
    assert done.code == 1
    assert done.err.startswith("mmr: error: gh api GET repos/{owner}/{repo}/issues/47/comments")
    assert "HTTP 403" in done.err and "pull-requests: write" in done.err
    assert len(done.err.strip().splitlines()) == 1


def test_exactly_one_source_is_required(repo, run_mmr, gh) -> None:
    done = run_mmr("comment", "--pr", str(PR), cwd=repo.root)
    assert done.code == 1
    assert "Give exactly one of --job <job-id> and --results <file>." in done.err
    assert gh.calls() == []


def test_a_job_id_is_read_through_the_results_pipeline(repo, fake_cli, run_mmr, gh, tmp_path):
    document = json.loads(review(run_mmr, repo, fake_cli, tmp_path, LOOP).read_text())
    done = run_mmr("comment", "--pr", str(PR), "--job", document["job_id"], cwd=repo.root)
    assert done.code == 0, done.err
    assert document["job_id"] in gh.comments()[0]["body"]
