"""``mmr explore``: selection, roots, gates, exit codes 0-3, ``--out``, formats."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from mmr.cli.main import main
from mmr.config.paths import jobs_dir, user_config_path
from tests.fakes.plugin import FakeCliFactory
from tests.integration.git_repo_builder import GitRepo
from tests.integration.minimax.conftest import RunCli, envelope, minimax, sessions

CITED = "`login` is defined at src/app.py:3"
ALT_EXPLORE = {
    "role": "explore", "enabled": True, "command": "alt-explorer", "flags": ["--ask"],
    "prompt_delivery": "stdin", "output_parser": {"kind": "answer"},
}


def user_channels(**channels: dict[str, Any]) -> None:
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump({"version": 1, "channels": channels}))


def explore(run_cli: RunCli, repo: GitRepo, *args: str) -> Any:
    return run_cli(main, "explore", "--root", str(repo.root), *args, cwd=repo.root)


def test_answer_to_stdout_with_telemetry_on_stderr(*, branch_repo: GitRepo,
                                                   fake_cli: FakeCliFactory,
                                                   run_cli: RunCli) -> None:
    fake = minimax(fake_cli, envelope(CITED))
    run = explore(run_cli, branch_repo, "--question", "where is login?")
    assert run.code == 0, run.err
    assert run.out == CITED + "\n"
    assert "[mmr] minimax-explore: tokens in 12,345 · out 678 · context 1,000,000 · " \
           "cost $0.0123 · turns 7 · " in run.err
    assert sessions(fake)[0]["stdin"].rstrip().endswith("## Question\nwhere is login?")
    assert not jobs_dir().exists() or list(jobs_dir().iterdir()) == []  # no job kept


def test_out_receives_the_answer_and_stdout_stays_empty(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli, tmp_path: Path) -> None:
    minimax(fake_cli, envelope(CITED))
    out = tmp_path / "deep" / "answer.md"
    run = explore(run_cli, branch_repo, "--question", "q", "--out", str(out))
    assert run.code == 0
    assert run.out == ""
    assert out.read_text() == CITED + "\n"


def test_json_document_with_answer_and_telemetry(*, branch_repo: GitRepo,
                                                 fake_cli: FakeCliFactory,
                                                 run_cli: RunCli) -> None:
    minimax(fake_cli, envelope(CITED))
    run = explore(run_cli, branch_repo, "--question", "q", "--format", "json")
    assert run.code == 0
    assert run.out.startswith('{\n  "answer": ')
    assert run.json() == {
        "answer": CITED, "channel": "minimax-explore", "status": "answered",
        "roots": [str(branch_repo.root)],
        "channels": {"minimax-explore": {"status": "completed", "telemetry": {
            "context_window": 1_000_000, "input_tokens": 12_345, "output_tokens": 678,
            "cost_usd": 0.0123, "turns": 7}}},
    }
    assert "tokens in" not in run.err  # telemetry is in the document


def test_json_not_found(*, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli) -> None:
    minimax(fake_cli, envelope("NOT FOUND"))
    run = explore(run_cli, branch_repo, "--question", "q", "--format", "json")
    assert run.code == 0
    assert run.json()["status"] == "not_found"


def test_json_failed_after_retry_exits_2(*, branch_repo: GitRepo, fake_cli: FakeCliFactory,
                                         run_cli: RunCli, tmp_path: Path) -> None:
    minimax(fake_cli, exit_code=3, stderr="provider down")
    out = tmp_path / "doc.json"
    run = explore(run_cli, branch_repo, "--question", "q", "--format", "json", "--out", str(out))
    assert run.code == 2
    document = yaml.safe_load(out.read_text())
    assert document["status"] == "failed" and document["answer"] is None
    assert document["channel"] is None
    assert document["channels"]["minimax-explore"] == {"status": "failed", "attempts": 2}


def test_uncited_answer_exits_3(*, branch_repo: GitRepo, fake_cli: FakeCliFactory,
                                run_cli: RunCli) -> None:
    minimax(fake_cli, envelope("somewhere in the auth code"))
    run = explore(run_cli, branch_repo, "--question", "q", "--format", "json")
    assert run.code == 3
    document = run.json()
    assert document["status"] == "uncited"
    assert document["answer"] == "somewhere in the auth code"
    assert document["channels"]["minimax-explore"]["reason"] == "gate_failed"


def test_dry_run_lists_roots_channel_prompt_and_argv(*, branch_repo: GitRepo,
                                                     fake_cli: FakeCliFactory,
                                                     run_cli: RunCli, tmp_path: Path) -> None:
    fake = minimax(fake_cli)
    other = tmp_path / "other"
    other.mkdir()
    run = run_cli(main, "explore", "--root", ".", "--root", str(other), "--question", "q",
                  "--dry-run", "--m3", cwd=branch_repo.root)
    assert run.code == 0
    assert f"roots:\n  {branch_repo.root}\n  {other}\n" in run.out
    assert "channels: minimax-explore" in run.out
    assert ("ask-minimax-run --model MiniMax-M3 --permission-mode default --allowedTools "
            "Read,Glob,Grep") in run.out
    assert f"--add-dir {branch_repo.root} --add-dir {other} -p" in run.out
    assert "# Read-only code exploration" in run.out and "## Question\nq" in run.out
    assert fake.calls() == []


@pytest.mark.parametrize(("args", "message"), [
    (["--question", "q", "--effort", "huge"], "low|medium|high|xhigh|max"),
    (["--question", "q", "--format", "xml"], "xml"),
    (["--question", "q", "--prompt-file", "q.md"], "exactly one of"),
    ([], "exactly one of"),
    (["--question", "q", "--timeout", "-1"], "--timeout must be greater than 0"),
])
def test_usage_errors_exit_1(*, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli,
                             args: list[str], message: str) -> None:
    fake = minimax(fake_cli)
    run = explore(run_cli, branch_repo, *args)
    assert run.code == 1
    assert message in run.err
    assert fake.calls() == []


def test_root_is_required(*, branch_repo: GitRepo, run_cli: RunCli) -> None:
    run = run_cli(main, "explore", "--question", "q", cwd=branch_repo.root)
    assert run.code == 1
    assert "--root is required" in run.err


@pytest.mark.parametrize("root", ["missing", "secrets", "local_secrets/x"])
def test_bad_roots_exit_1(*, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli,
                          root: str) -> None:
    (branch_repo.root / "secrets").mkdir()
    (branch_repo.root / "local_secrets" / "x").mkdir(parents=True)
    fake = minimax(fake_cli)
    run = run_cli(main, "explore", "--root", root, "--question", "q", cwd=branch_repo.root)
    assert run.code == 1
    assert fake.calls() == []


def test_review_channel_cannot_be_explored_with(*, branch_repo: GitRepo, run_cli: RunCli) -> None:
    run = explore(run_cli, branch_repo, "--question", "q", "--channels", "minimax")
    assert run.code == 1
    assert 'Channel "minimax" has role review and cannot be dispatched by explore' in run.err


def test_enabled_explore_channels_replace_the_fallback(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli) -> None:
    user_channels(**{"alt-explore": ALT_EXPLORE})
    mm = minimax(fake_cli)
    alt = fake_cli("alt-explorer", stdout="see src/app.py:3")
    run = explore(run_cli, branch_repo, "--question", "q")
    assert run.code == 0, run.err
    assert run.out == "see src/app.py:3\n"
    assert alt.last_call()["argv"] == ["--ask"]
    assert mm.calls() == []


def test_first_passing_channel_in_selection_order_wins(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli) -> None:
    user_channels(**{"alt-explore": ALT_EXPLORE})
    minimax(fake_cli, envelope("no idea"))  # uncited: fails its gate
    fake_cli("alt-explorer", stdout="see src/app.py:3")
    run = explore(run_cli, branch_repo, "--question", "q", "--format", "json",
                  "--channels", "minimax-explore,alt-explore")
    assert run.code == 0
    document = run.json()
    assert (document["channel"], document["answer"]) == ("alt-explore", "see src/app.py:3")
    assert document["channels"]["minimax-explore"]["reason"] == "gate_failed"

    minimax(fake_cli, envelope(CITED))
    run = explore(run_cli, branch_repo, "--question", "q", "--format", "json",
                  "--channels", "minimax-explore", "alt-explore")
    assert run.json()["channel"] == "minimax-explore"


def test_exit_2_only_when_every_channel_failed(*, branch_repo: GitRepo, fake_cli: FakeCliFactory,
                                               run_cli: RunCli) -> None:
    user_channels(**{"alt-explore": ALT_EXPLORE})
    minimax(fake_cli, exit_code=1)
    fake_cli("alt-explorer", stdout="no citation here")
    run = explore(run_cli, branch_repo, "--question", "q",
                  "--channels", "minimax-explore,alt-explore")
    assert run.code == 3  # one channel ran and answered without a citation
    assert run.out == "no citation here\n"


def test_channel_that_is_not_installed_is_reported_and_skipped(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli) -> None:
    user_channels(**{"alt-explore": ALT_EXPLORE})
    fake_cli("alt-explorer", stdout="see src/app.py:3")
    run = explore(run_cli, branch_repo, "--question", "q", "--format", "json",
                  "--channels", "minimax-explore,alt-explore")
    assert run.code == 0
    assert run.json()["channels"]["minimax-explore"] == {"status": "not_installed"}


def test_prompt_file_question(*, branch_repo: GitRepo, fake_cli: FakeCliFactory,
                              run_cli: RunCli) -> None:
    (branch_repo.root / "q.md").write_text("Which module sends mail?\n")
    fake = minimax(fake_cli, envelope(CITED))
    run = explore(run_cli, branch_repo, "--prompt-file", "q.md", "--breadth", "very-thorough")
    assert run.code == 0
    prompt = sessions(fake)[0]["stdin"]
    assert "very-thorough: sweep every root" in prompt
    assert prompt.rstrip().endswith("Which module sends mail?")
