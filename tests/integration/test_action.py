"""``action.yml``: its ``run:`` steps, run as a runner would, against fake channel CLIs in a
real repository (a pull request branch on top of ``main``)."""

from __future__ import annotations

import itertools
import json
import os
import sys
from pathlib import Path

import pytest

from tests.fakes.plugin import FakeCli, FakeCliFactory
from tests.integration.action_runner import StepRun, run_action
from tests.integration.git_repo_builder import GitRepo
from tests.integration.review.conftest import CLEAN, finding, reply, write_user_config
from tests.sarif_schema import sarif_errors

REPO_ROOT = Path(__file__).resolve().parents[2]
ACTION = REPO_ROOT / "action.yml"


#: Stands in for `python3 -m venv` and `pip install` (which would need the network and
#: would replace the shared editable install): it records the calls and makes a "venv"
#: whose python is the test interpreter and whose mmr is the installed one.
_PYTHON3_SHIM = """#!/bin/bash
echo "python3 $*" >> "{record}"
if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then
  mkdir -p "$3/bin"
  printf '%s\\n' '#!/bin/bash' \\
    'if [ "$1" = "-m" ] && [ "$2" = "pip" ]; then' \\
    '  echo "venv-python $*" >> "{record}"; exit 0' \\
    'fi' \\
    'exec "{python}" "$@"' > "$3/bin/python"
  chmod +x "$3/bin/python"
  ln -s "{mmr}" "$3/bin/mmr"
  exit 0
fi
exec "{python}" "$@"
"""


@pytest.fixture
def pull_request(tmp_path: Path) -> GitRepo:
    """``feature`` adds an off-by-one to ``src/app.py`` on top of ``main``."""
    repo = GitRepo.create(tmp_path / "repo", {"src/app.py": "def f(n):\n    return n\n"})
    repo.branch("feature")
    repo.commit({"src/app.py": "def f(n):\n    for i in range(n + 1):\n        print(i)\n"})
    return repo


@pytest.fixture
def runner(tmp_path: Path, pull_request: GitRepo):
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    record = tmp_path / "installer.log"
    shim_dir = tmp_path / "installer-bin"
    shim_dir.mkdir()
    shim = shim_dir / "python3"
    mmr = Path(sys.executable).parent / "mmr"
    shim.write_text(_PYTHON3_SHIM.format(record=record, python=sys.executable, mmr=mmr))
    shim.chmod(0o755)
    summary = tmp_path / "step-summary.md"
    runs = itertools.count()

    def run(inputs: dict[str, str], base_ref: str = "main",
            github: dict[str, str] | None = None) -> tuple[list[StepRun], Path]:
        env = dict(os.environ, CI="true", GITHUB_ACTIONS="true", RUNNER_TEMP=str(temp),
                   GITHUB_STEP_SUMMARY=str(summary), GITHUB_WORKSPACE=str(pull_request.root))
        context = {"base_ref": base_ref, "action_path": str(REPO_ROOT), **(github or {})}
        steps = run_action(
            ACTION, inputs=inputs, github=context,
            env=env, cwd=pull_request.root, work=tmp_path / f"steps-{next(runs)}",
            path_for_step={"install": str(shim_dir)},
        )
        return steps, record

    run.temp = temp  # type: ignore[attr-defined]
    run.summary = summary  # type: ignore[attr-defined]
    return run


def by_name(steps: list[StepRun]) -> dict[str, StepRun]:
    return {step.name: step for step in steps}


def two_reviewers(fake_cli: FakeCliFactory, first: dict, second: dict) -> list[FakeCli]:
    fakes = [fake_cli("rev1", stdout=first), fake_cli("rev2", stdout=second)]
    write_user_config({"rev1": {"command": "rev1"}, "rev2": {"command": "rev2"}})
    return fakes


def test_blocked_pull_request_annotates_uploads_sarif_and_fails(runner, fake_cli, pull_request):
    two_reviewers(fake_cli, reply(finding()), reply(finding(location="src/app.py:3")))
    steps, installer_log = runner({"upload-sarif": "true"})
    step = by_name(steps)
    assert [s.name for s in steps] == [
        "Set up Python for mmr", "Install mmr", "Hash the diff for the review cache",
        "Restore and save the review cache", "Restore and save the pull request's last review",
        "Review the pull request", "Post the sticky pull-request comment",
        "Upload findings to code scanning", "Gate on the verdict"]
    assert step["Post the sticky pull-request comment"].skipped  # comment: off by default
    # The review cache is persisted, keyed by the diff: the same change hashes the same.
    key = step["Hash the diff for the review cache"].outputs["key"]
    assert key.startswith("mmr-review-cache-") and len(key) == len("mmr-review-cache-") + 16
    cache = step["Restore and save the review cache"]
    assert cache.uses == "actions/cache@v4"
    assert cache.with_ == {"path": "~/.mmr/cache/reviews", "key": key,
                           "restore-keys": "mmr-review-cache-"}

    install = step["Install mmr"]
    assert install.code == 0, install.stderr
    venv = runner.temp / "mmr-venv"
    assert installer_log.read_text().splitlines() == [
        f"python3 -m venv {venv}",
        f"venv-python -m pip install --disable-pip-version-check --quiet {REPO_ROOT}",
    ]

    review = step["Review the pull request"]
    assert review.code == 0, review.stderr
    assert review.outputs["verdict"] == "blocked"
    assert review.outputs["exit-code"] == "2"
    assert "::error file=src/app.py,line=2," in review.stdout
    assert "::error title=mmr verdict::Review blocked" in review.stdout
    assert "## Multi-Model Review — BLOCKED" in runner.summary.read_text(encoding="utf-8")
    document = json.loads(Path(review.outputs["results-file"]).read_text(encoding="utf-8"))
    assert document["verdict"] == "blocked"

    upload = step["Upload findings to code scanning"]
    assert not upload.skipped
    assert upload.uses == "github/codeql-action/upload-sarif@v3"
    assert upload.with_ == {"sarif_file": "mmr-results.sarif", "category": "mmr"}
    # The SARIF path is relative to the workspace, where the upload step reads it.
    sarif = json.loads((pull_request.root / "mmr-results.sarif").read_text(encoding="utf-8"))
    assert sarif_errors(sarif) == []
    assert sarif["runs"][0]["properties"]["verdict"] == "blocked"

    gate = step["Gate on the verdict"]
    assert gate.code == 2
    assert "mmr verdict: blocked (exit 2)" in gate.stdout


def test_passing_review_in_text_skips_the_upload_and_succeeds(runner, fake_cli):
    two_reviewers(fake_cli, CLEAN, CLEAN)
    steps, _ = runner({"format": "text"})
    step = by_name(steps)
    review = step["Review the pull request"]
    assert review.outputs["verdict"] == "pass"
    assert review.stdout.startswith("MMR PASSED — mmr-")
    assert "sarif-file" not in review.outputs
    assert step["Upload findings to code scanning"].skipped
    assert step["Gate on the verdict"].code == 0
    assert not runner.summary.exists()  # only the github format writes a step summary


def test_channels_and_fix_threshold_inputs_reach_the_review(runner, fake_cli):
    fake_cli("rev1", stdout=reply(finding(severity="P1")))
    fake_cli("rev2", stdout=CLEAN)
    rev3 = fake_cli("rev3", stdout=reply(finding(severity="P0")))
    write_user_config({name: {"command": name} for name in ("rev1", "rev2", "rev3")})
    steps, _ = runner({"channels": "rev1, rev2", "fix-threshold": "P0", "format": "json"})
    review = by_name(steps)["Review the pull request"]
    document = json.loads(review.stdout)
    assert list(document["per_channel"]) == ["rev1", "rev2"]
    assert (document["verdict"], document["fix_threshold"]) == ("pass", "P0")
    assert rev3.calls() == []
    assert by_name(steps)["Gate on the verdict"].code == 0


def test_the_review_sees_the_pull_requests_diff(runner, fake_cli):
    first, _ = two_reviewers(fake_cli, CLEAN, CLEAN)
    runner({})
    prompt = first.last_call()["stdin"]
    assert "+    for i in range(n + 1):" in prompt


def test_a_base_that_exists_only_on_the_remote_is_found(runner, fake_cli, pull_request):
    pull_request.git("update-ref", "refs/remotes/origin/main", "main")
    pull_request.git("branch", "-D", "main")
    two_reviewers(fake_cli, reply(finding()), CLEAN)
    steps, _ = runner({"format": "json"})
    review = by_name(steps)["Review the pull request"]
    assert review.code == 0, review.stderr
    assert json.loads(review.stdout)["verdict"] == "blocked"


def test_the_base_input_wins_over_the_pull_requests_base(runner, fake_cli, pull_request):
    pull_request.git("branch", "release", "main")
    two_reviewers(fake_cli, CLEAN, CLEAN)
    steps, _ = runner({"base": "release", "format": "json"}, base_ref="no-such-branch")
    review = by_name(steps)["Review the pull request"]
    assert review.outputs["exit-code"] == "0", review.stderr


def test_without_a_base_the_action_fails_with_a_message(runner, fake_cli):
    first, _ = two_reviewers(fake_cli, CLEAN, CLEAN)
    steps, _ = runner({}, base_ref="")
    step = by_name(steps)
    assert "::error title=mmr::No base ref to review against" in step[
        "Review the pull request"].stdout
    assert step["Gate on the verdict"].code == 1
    assert first.calls() == []


def test_a_review_that_cannot_run_fails_the_gate(runner, fake_cli):
    write_user_config({})  # every built-in disabled and nothing else: no channels
    steps, _ = runner({})
    step = by_name(steps)
    review = step["Review the pull request"]
    assert review.outputs["exit-code"] == "1"
    assert "verdict" not in review.outputs
    assert step["Gate on the verdict"].code == 1


PULL_REQUEST_EVENT = {"event.pull_request.number": "47", "repository": "acme/app",
                      "event.pull_request.head.repo.full_name": "acme/app"}


def test_sticky_comment_is_posted_then_updated_with_the_fake_gh(runner, fake_cli, tmp_path,
                                                                monkeypatch):
    from tests.fakes.gh_api import install_fake_gh_api

    gh = install_fake_gh_api(tmp_path, monkeypatch)
    two_reviewers(fake_cli, reply(finding()), reply(finding()))
    steps, _ = runner({"comment": "sticky"}, github=PULL_REQUEST_EVENT)
    posted = by_name(steps)["Post the sticky pull-request comment"]
    assert posted.code == 0, posted.stderr
    assert json.loads(posted.stdout)["action"] == "created"
    assert [c["env_repo"] for c in gh.calls()] == ["acme/app", "acme/app"]
    assert "BLOCKED" in gh.comments()[0]["body"]
    assert by_name(steps)["Gate on the verdict"].code == 2

    two_reviewers(fake_cli, CLEAN, CLEAN)
    steps, _ = runner({"comment": "sticky"}, github=PULL_REQUEST_EVENT)
    assert json.loads(by_name(steps)["Post the sticky pull-request comment"].stdout)[
        "action"] == "updated"
    [comment] = gh.comments()
    assert "PASSED" in comment["body"] and "### Resolved since the last run" in comment["body"]
    assert by_name(steps)["Gate on the verdict"].code == 0


def test_incremental_reviews_the_pull_request_from_its_last_review(
        runner, fake_cli, tmp_path, monkeypatch, pull_request):
    from tests.integration.git_repo_builder import install_fake_gh

    (tmp_path / "gh").mkdir()
    gh = install_fake_gh(tmp_path / "gh", monkeypatch)

    def push() -> dict[str, str]:
        head = pull_request.git("rev-parse", "HEAD").strip()
        gh.set_diff(pull_request.git("diff", "main...feature"))
        gh.set_view(json.dumps({"headRefOid": head, "url": "https://github.com/acme/app/pull/47"}))
        return {**PULL_REQUEST_EVENT, "event.pull_request.head.sha": head}

    reviewer, _ = two_reviewers(fake_cli, reply(finding()), reply(finding()))
    event = push()
    steps, _ = runner({"incremental": "true", "format": "json", "github-token": "ghs_job1"},
                      github=event)
    # mmr's gh calls have the job's token; the reviewers it runs do not.
    assert set(gh.tokens()) == {"ghs_job1"}
    assert "ghs_job1" not in json.dumps(reviewer.last_call()["env"])
    cache = by_name(steps)["Restore and save the pull request's last review"]
    head = event["event.pull_request.head.sha"]
    assert cache.with_ == {"path": "~/.mmr/pulls", "key": f"mmr-pull-47-{head}",
                           "restore-keys": "mmr-pull-47-"}
    first = json.loads(by_name(steps)["Review the pull request"].stdout)
    assert (first["verdict"], first["pull_request"]["review"]) == ("blocked", "full")
    assert ["pr", "diff", "47", "--color", "never"] in gh.calls()

    pull_request.commit({"README.md": "notes\n"})
    rev1, _ = two_reviewers(fake_cli, CLEAN, CLEAN)
    steps, _ = runner({"incremental": "true", "format": "json"}, github=push())
    second = json.loads(by_name(steps)["Review the pull request"].stdout)
    assert second["pull_request"]["review"] == "incremental"
    assert "+notes" in rev1.last_call()["stdin"]
    assert "range(n + 1)" not in rev1.last_call()["stdin"]
    # The off-by-one of the first push is carried: its lines are untouched, and it blocks.
    assert [f["state"] for f in second["reconciled_findings"]] == ["open"]
    assert by_name(steps)["Gate on the verdict"].code == 2


def test_a_fork_pull_request_skips_the_comment_with_a_notice(runner, fake_cli, tmp_path,
                                                             monkeypatch):
    from tests.fakes.gh_api import install_fake_gh_api

    gh = install_fake_gh_api(tmp_path, monkeypatch)
    two_reviewers(fake_cli, CLEAN, CLEAN)
    fork = {**PULL_REQUEST_EVENT, "event.pull_request.head.repo.full_name": "someone/app"}
    steps, _ = runner({"comment": "sticky"}, github=fork)
    posted = by_name(steps)["Post the sticky pull-request comment"]
    assert posted.code == 0
    assert "::notice title=mmr::This pull request comes from a fork" in posted.stdout
    assert gh.calls() == []


def test_a_comment_that_cannot_be_posted_does_not_change_the_verdict(runner, fake_cli, tmp_path,
                                                                     monkeypatch):
    from tests.fakes.gh_api import install_fake_gh_api

    install_fake_gh_api(tmp_path, monkeypatch)
    monkeypatch.setenv("FAKE_GH_STATUS", "403")
    two_reviewers(fake_cli, CLEAN, CLEAN)
    steps, _ = runner({"comment": "sticky"}, github=PULL_REQUEST_EVENT)
    posted = by_name(steps)["Post the sticky pull-request comment"]
    assert posted.code == 0
    assert "::warning title=mmr::mmr comment failed" in posted.stdout
    assert by_name(steps)["Gate on the verdict"].code == 0


def test_inline_comments_and_run_totals_as_outputs(runner, fake_cli, tmp_path, monkeypatch,
                                                   pull_request):
    from tests.fakes.gh_api import install_fake_gh_api

    gh = install_fake_gh_api(tmp_path, monkeypatch)
    gh.model_pr(pull_request.root, "main", "feature")
    answer = json.dumps(reply(finding()))
    fake_cli("rev1", stdout={"result": answer, "usage": {"input_tokens": 900,
                                                         "output_tokens": 40}})
    fake_cli("rev2", stdout={"result": answer, "usage": {"input_tokens": 100,
                                                         "output_tokens": 2}})
    usage = {"output_parser": {"kind": "unwrap-jsonpath", "wrap": "$.result"},
             "telemetry": {"input_tokens": "$.usage.input_tokens",
                           "output_tokens": "$.usage.output_tokens"}}
    write_user_config({"rev1": {"command": "rev1", **usage},
                       "rev2": {"command": "rev2", "flags": ["-2"], **usage}})
    steps, _ = runner({"comment": "inline", "max-inline": "5"}, github=PULL_REQUEST_EVENT)
    review = by_name(steps)["Review the pull request"]
    assert (review.outputs["input_tokens"], review.outputs["output_tokens"],
            review.outputs["total_cost_usd"]) == ("1000", "42", "")
    posted = by_name(steps)["Post the sticky pull-request comment"]
    assert posted.code == 0, posted.stderr
    assert json.loads(posted.stdout)["review"]["inline"] == 1
    assert "**Run total:** tokens in 1,000 · out 42" in gh.comments()[0]["body"]
    [comment] = gh.pr()["reviews"][0]["comments"]
    assert (comment["path"], comment["line"]) == ("src/app.py", 2)
