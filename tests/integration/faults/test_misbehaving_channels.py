"""A channel that misbehaves costs only itself: the others' results stay, the verdict is honest.

Each case runs ``mmr review --sync`` on a real repository with three fake channels: ``ok1``
(a clean review), ``ok2`` (one advisory P3 finding) and ``bad``, which misbehaves as the
case says. Whatever ``bad`` does, ``ok1`` and ``ok2`` complete with their findings, ``bad``
is reported as not completed with a reason a human can act on, and the verdict is
``degraded-pass`` — never a clean ``pass``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.plugin import FakeCli, FakeCliFactory, process_gone, wait_until_gone
from tests.integration.faults.conftest import (
    CLEAN,
    NO_COMPENSATOR,
    NO_COMPENSATOR_DEFAULTS,
    RunMmr,
    load_job,
    write_user_config,
)
from tests.integration.git_repo_builder import GitRepo

ADVISORY = {"severity": "P3", "location": "src/app.py:2", "description": "Loop could use a name",
            "suggestion": "Rename i"}
HALF_REPLY = '{"approved": false, "findings": [{"severity": "P0", "location": "src/app.py:2", '


@dataclass(frozen=True)
class Review:
    """One ``review --sync`` run: exit code, JSON document, wall time, and the fakes."""

    code: int
    doc: dict[str, Any]
    seconds: float
    fakes: dict[str, FakeCli]

    @property
    def bad(self) -> dict[str, Any]:
        """``per_channel.bad``."""
        result: dict[str, Any] = self.doc["per_channel"]["bad"]
        return result

    def bad_call(self) -> dict[str, Any]:
        """What the misbehaving fake recorded."""
        return self.fakes["bad"].last_call()

    def assert_others_kept_and_verdict_honest(self) -> None:
        assert_others_kept_and_verdict_honest(self.code, self.doc)


def review_with(repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr,
                bad: dict[str, Any], *extra: str, timeout: float = 3) -> Review:
    """Review with ``ok1``, ``ok2`` and ``bad`` (a fake built from ``bad``)."""
    fakes = {"ok1": fake_cli("ok1", stdout=CLEAN),
             "ok2": fake_cli("ok2", stdout={"approved": True, "findings": [ADVISORY],
                                            "summary": "one nit"}),
             "bad": fake_cli("bad", **bad)}
    write_user_config({"ok1": {"command": "ok1"}, "ok2": {"command": "ok2"},
                       "bad": {"command": "bad", "timeout": timeout}, **NO_COMPENSATOR},
                      defaults=NO_COMPENSATOR_DEFAULTS)
    started = time.monotonic()
    result = run_mmr("review", "--sync", "--channels", "ok1,ok2,bad", *extra, cwd=repo.root)
    assert result.out, result.err
    return Review(result.code, result.json(), time.monotonic() - started, fakes)


def assert_others_kept_and_verdict_honest(code: int, doc: dict[str, Any]) -> None:
    """``ok1`` and ``ok2`` completed with their findings; ``bad`` did not and says why; the
    verdict is ``degraded-pass`` (two of three completed: above the floor, not clean)."""
    per_channel = doc["per_channel"]
    assert per_channel["ok1"]["status"] == "completed"
    assert per_channel["ok2"]["status"] == "completed"
    assert [f["description"] for f in per_channel["ok2"]["findings"]] == [
        ADVISORY["description"]]
    assert [f["description"] for f in doc["reconciled_findings"]] == [ADVISORY["description"]]
    assert per_channel["bad"]["status"] != "completed"
    assert per_channel["bad"]["error"]
    assert doc["metadata"]["channels_completed"] == 2
    assert (code, doc["verdict"]) == (0, "degraded-pass")


def test_sigterm_ignoring_channel_is_killed_at_its_deadline(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    review = review_with(repo, fake_cli, run_mmr,
                         {"stdout": CLEAN, "sleep": 60, "ignore_sigterm": True}, timeout=1)
    review.assert_others_kept_and_verdict_honest()
    assert review.bad["status"] == "timeout"
    # deadline 1 s + at most 2 s of SIGTERM grace, then SIGKILL; not the fake's 60 s
    assert review.seconds < 15
    assert process_gone(review.bad_call()["pid"])


def test_grandchild_holding_stdout_is_a_timeout_and_dies_with_its_group(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    review = review_with(repo, fake_cli, run_mmr,
                         {"stdout": CLEAN, "spawn_grandchild": True, "grandchild_sleep": 4},
                         timeout=1)
    review.assert_others_kept_and_verdict_honest()
    # The child exited 0 with a full reply, but its grandchild kept stdout open.
    assert review.bad["status"] == "timeout"
    # Gone (a zombie counts) means it never reaches its own 4 s deadline, where it would
    # leave a marker; waiting that long as well would prove nothing more.
    assert wait_until_gone(review.bad_call()["grandchild_pid"])
    assert not review.fakes["bad"].marker.exists()


def test_grandchild_that_releases_stdout_does_not_hold_the_review(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    """A helper that keeps only stdin open lets the channel settle at once (as Node's
    ``close``); it is then killed with the rest of the channel's tree (issue 15)."""
    review = review_with(repo, fake_cli, run_mmr,
                         {"stdout": CLEAN, "spawn_grandchild": True, "grandchild_sleep": 30,
                          "grandchild_holds": "stdin"}, timeout=20)
    assert review.bad["status"] == "completed"
    assert (review.code, review.doc["verdict"]) == (0, "pass")
    assert review.seconds < 10


def test_channel_that_closes_stdout_early_is_failed(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    review = review_with(repo, fake_cli, run_mmr, {"stdout": CLEAN, "close_stdout_early": True})
    review.assert_others_kept_and_verdict_honest()
    assert review.bad["status"] == "failed"
    assert "Process exited with code 0" in review.bad["error"]  # exit 0, no stdout


def test_channel_that_never_reads_a_10mb_prompt(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr, tmp_path: Path) -> None:
    lines = "".join(f"+line {i} {'y' * 90}\n" for i in range(110_000))  # ≈ 10.5 MB
    diff = tmp_path / "big.patch"  # --diff: `git diff` output over 10 MiB is refused
    diff.write_text("diff --git a/src/big.txt b/src/big.txt\nnew file mode 100644\n"
                    "--- /dev/null\n+++ b/src/big.txt\n@@ -0,0 +1,110000 @@\n" + lines)
    review = review_with(repo, fake_cli, run_mmr,
                         {"stdout": CLEAN, "ignore_stdin": True, "sleep": 0.5},
                         "--diff", str(diff), timeout=60)
    # It answered without reading its prompt: mmr cannot know, so the reply counts — but the
    # unread 10 MB must neither stall mmr (EPIPE is swallowed) nor cost the others: a stall
    # would last until the channel's timeout, minutes; the bound leaves room for a loaded box.
    per_channel = review.doc["per_channel"]
    assert [per_channel[n]["status"] for n in ("ok1", "ok2", "bad")] == ["completed"] * 3
    assert review.bad_call()["stdin_bytes"] is None  # it really never read
    for name in ("ok1", "ok2"):
        assert review.fakes[name].last_call()["stdin_bytes"] > 10_000_000
    assert review.seconds < 45
    assert (review.code, review.doc["verdict"]) == (0, "pass")


def test_channel_that_crashes_mid_reply_is_failed(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    review = review_with(repo, fake_cli, run_mmr, {"stdout": HALF_REPLY, "kill_self": 9})
    review.assert_others_kept_and_verdict_honest()
    assert review.bad["status"] == "failed" and review.bad["findings"] == []
    assert "SIGKILL" in review.bad["error"]
    # Its half-written P0 never reaches the report.
    assert all(f["severity"] != "P0" for f in review.doc["reconciled_findings"])


def test_truncated_reply_with_exit_0_is_a_parse_error_not_a_clean_review(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    review = review_with(repo, fake_cli, run_mmr, {"stdout": HALF_REPLY})
    review.assert_others_kept_and_verdict_honest()
    assert review.bad["status"] == "failed"
    assert load_job()["channels"]["bad"]["reason"] == "parse_error"


@pytest.mark.parametrize("bad", [
    {"stdout": CLEAN, "close_stdout_early": True},
    {"stdout": HALF_REPLY, "kill_self": 9},
    {"stdout": "", "stderr": "quota exceeded", "exit_code": 1},
], ids=["closed-stdout", "crash", "exit-1"])
def test_one_clean_and_one_broken_is_below_the_floor(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr, bad: dict[str, Any]) -> None:
    """With the default floor of 2 a single clean review is not enough evidence to pass."""
    fake_cli("ok1", stdout=CLEAN)
    fake_cli("bad", **bad)
    write_user_config({"ok1": {"command": "ok1"}, "bad": {"command": "bad"}, **NO_COMPENSATOR},
                      defaults=NO_COMPENSATOR_DEFAULTS)
    result = run_mmr("review", "--sync", "--channels", "ok1,bad", cwd=repo.root)
    doc = result.json()
    assert (result.code, doc["verdict"]) == (3, "needs-user-decision")
    assert doc["per_channel"]["ok1"]["status"] == "completed"
    assert doc["per_channel"]["bad"]["status"] == "failed"
