"""The fire-and-forget dispatch summary tells dispatched from not-dispatched channels (issue 18)."""

from __future__ import annotations

import pytest

from tests.fakes.plugin import FakeCliFactory
from tests.integration.git_repo_builder import GitRepo
from tests.integration.lifecycle.conftest import (
    CLEAN,
    RunMmr,
    wait_until_finished,
    write_user_config,
)

pytestmark = pytest.mark.slow


def test_not_installed_and_auth_failed_channels_are_not_listed_as_dispatched(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    fake_cli("rev1", stdout=CLEAN, sleep=2)
    write_user_config({
        "rev1": {"command": "rev1"},
        "gone": {"command": "gone-tool --flag"},
        "locked": {"command": "rev1", "auth": {"check": "exit 4", "failure_exit_codes": [4],
                                               "recovery": "rev1 login"}},
    })
    result = run_mmr("review", cwd=repo.root)
    assert result.code == 0, result.err
    summary = result.json()
    assert summary["valid_channels"] == ["rev1"]
    assert summary["channels"] == {"rev1": "dispatched", "gone": "not_installed",
                                   "locked": "auth_failed"}
    assert summary["not_dispatched"] == [
        {"channel": "gone", "status": "not_installed", "reason": "gone-tool not found on PATH"},
        {"channel": "locked", "status": "auth_failed", "reason": "rev1 login"},
    ]
    assert list(summary)[:5] == ["job_id", "status", "trust_mode", "channels", "valid_channels"]
    status = wait_until_finished(run_mmr, summary["job_id"], repo.root)
    channels = status.json()["channels"]
    assert channels["gone"]["status"] == "not_installed"
    assert channels["locked"]["status"] == "auth_failed"


def test_no_channel_passing_the_gate_dispatches_nothing(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    write_user_config({"gone": {"command": "gone-tool"}})
    summary = run_mmr("review", "--channels", "gone", cwd=repo.root).json()
    assert summary["valid_channels"] == []
    assert summary["channels"] == {"gone": "not_installed"}
    assert summary["status"] == "completed"
    assert [entry["channel"] for entry in summary["not_dispatched"]] == ["gone"]
