"""Every verdict of ``review --sync`` and its exit code."""

from __future__ import annotations

from tests.builtin_channels import ENABLED_BUILTINS
from tests.fakes.plugin import FakeCliFactory
from tests.integration.git_repo_builder import GitRepo
from tests.integration.review.conftest import CLEAN, RunMmr, finding, reply, write_user_config


def test_pass_exits_0(repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    fake_cli("rev1", stdout=CLEAN)
    fake_cli("rev2", stdout=CLEAN)
    write_user_config({"rev1": {"command": "rev1"}, "rev2": {"command": "rev2"}})
    result = run_mmr("review", "--sync", cwd=repo.root)
    doc = result.json()
    assert (result.code, doc["verdict"], doc["summary"]) == (0, "pass", "Review passed")
    assert doc["approved"] is True
    assert doc["per_channel"]["rev1"]["status"] == "completed"
    assert doc["metadata"]["channels_completed"] == 2
    assert doc["trust_mode"] == "base-ref"


def test_degraded_pass_exits_0(repo: GitRepo, fake_cli: FakeCliFactory,
                               run_mmr: RunMmr) -> None:
    fake_cli("rev1", stdout=CLEAN)
    fake_cli("rev2", stdout=CLEAN)
    fake_cli("broken", stdout="", exit_code=1, stderr="boom")
    write_user_config(
        {"rev1": {"command": "rev1"}, "rev2": {"command": "rev2"},
         "broken": {"command": "broken"}, "comp": {"command": "no-such-compensator"}},
        defaults={"compensator": {"channel": "comp"}},
        channels_disabled=[*ENABLED_BUILTINS, "comp"],
    )
    result = run_mmr("review", "--sync", cwd=repo.root)
    doc = result.json()
    assert (result.code, doc["verdict"]) == (0, "degraded-pass")
    assert doc["summary"] == "Review passed (degraded — 2 of 3 channels reported)"
    assert doc["per_channel"]["broken"]["status"] == "failed"
    # The compensator is not installed: no pass is attempted.
    assert "compensating-broken" not in doc["per_channel"]


def test_blocked_exits_2(repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    fake_cli("rev1", stdout=reply(finding()))
    fake_cli("rev2", stdout=reply(finding(location="src/app.py:3")))
    write_user_config({"rev1": {"command": "rev1"}, "rev2": {"command": "rev2"}})
    result = run_mmr("review", "--sync", cwd=repo.root)
    doc = result.json()
    assert (result.code, doc["verdict"]) == (2, "blocked")
    assert doc["summary"] == "Review blocked — 1 finding(s) at or above P2"
    [merged] = doc["reconciled_findings"]
    assert merged["sources"] == ["rev1", "rev2"]


def test_fix_threshold_flag_turns_a_block_into_a_pass(repo: GitRepo, fake_cli: FakeCliFactory,
                                                      run_mmr: RunMmr) -> None:
    fake_cli("rev1", stdout=reply(finding(severity="P2")))
    fake_cli("rev2", stdout=CLEAN)
    write_user_config({"rev1": {"command": "rev1"}, "rev2": {"command": "rev2"}})
    result = run_mmr("review", "--sync", "--fix-threshold", "P1", cwd=repo.root)
    doc = result.json()
    assert (result.code, doc["verdict"], doc["advisory_count"]) == (0, "pass", 1)
    assert doc["fix_threshold"] == "P1"


def test_needs_user_decision_below_the_floor_exits_3(repo: GitRepo, fake_cli: FakeCliFactory,
                                                     run_mmr: RunMmr) -> None:
    fake_cli("rev1", stdout=CLEAN)
    write_user_config({"rev1": {"command": "rev1"}})
    result = run_mmr("review", "--sync", cwd=repo.root)
    doc = result.json()
    assert (result.code, doc["verdict"]) == (3, "needs-user-decision")
    assert doc["summary"].startswith("Too few channels reported to corroborate a pass — 1 of 1")
    assert ("[mmr] warning: min_completed_channels is 2 but only 1 channel(s) will be "
            "dispatched (rev1)") in result.err


def test_needs_user_decision_when_nothing_completed_exits_3(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    fake_cli("rev1", stdout="", exit_code=1)
    write_user_config({"rev1": {"command": "rev1"}, "comp": {"command": "no-such-tool"}},
                      defaults={"compensator": {"channel": "comp"},
                                "min_completed_channels": 1})
    result = run_mmr("review", "--sync", cwd=repo.root)
    doc = result.json()
    assert (result.code, doc["verdict"]) == (3, "needs-user-decision")
    assert doc["summary"] == "No channels completed — manual review needed"


def test_results_json_is_written_and_matches_the_printed_document(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    import json

    from mmr.config.paths import jobs_dir

    fake_cli("rev1", stdout=reply(finding()))
    fake_cli("rev2", stdout=CLEAN)
    write_user_config({"rev1": {"command": "rev1"}, "rev2": {"command": "rev2"}})
    result = run_mmr("review", "--sync", "--format", "text", cwd=repo.root)
    assert result.code == 2
    assert result.out.startswith("MMR BLOCKED — mmr-")
    job_id = result.out.split(" — ", 1)[1].splitlines()[0]
    saved = json.loads((jobs_dir() / job_id / "results.json").read_text())
    assert saved["verdict"] == "blocked"
    assert saved["job_id"] == job_id


def test_the_job_records_which_cli_versions_reviewed_it(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    import json

    from mmr.config.paths import jobs_dir

    fake_cli("rev1", stdout=CLEAN)
    write_user_config({"rev1": {"command": "rev1"}},
                      defaults={"min_completed_channels": 1})
    result = run_mmr("review", "--sync", "--channels", "rev1", cwd=repo.root)
    job = json.loads((jobs_dir() / result.json()["job_id"] / "job.json").read_text())
    # The fake answers --version with its configured reply (the JSON of CLEAN, one line).
    assert job["cli_versions"] == {"rev1": json.dumps(CLEAN)}
