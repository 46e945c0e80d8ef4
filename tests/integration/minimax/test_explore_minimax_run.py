"""``explore-minimax-run``: the explore spec's requirements 1–8 and its exit-code table."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest

from mmr.config.paths import jobs_dir
from mmr.wrappers.explore_minimax_run import main
from tests.fakes.plugin import FakeCliFactory
from tests.integration.git_repo_builder import GitRepo
from tests.integration.minimax.conftest import RunCli, envelope, minimax, sessions

CITED = "login is defined in src/app.py:3\n```\ndef login(user, password):\n```\nSearches run:\n"


@pytest.fixture
def question(tmp_path: Path) -> Path:
    path = tmp_path / "question.md"
    path.write_text("Where is the login handler defined?\n")
    return path


def explore(run_cli: RunCli, cwd: Path, question: Path, out: Path, *extra: str,
            roots: tuple[str, ...] = (".",)) -> tuple[int, str]:
    args: list[str] = []
    for root in roots:
        args += ["--root", root]
    run = run_cli(main, *args, "--prompt-file", str(question), "--out", str(out), *extra,
                  cwd=cwd)
    return run.code, run.err


# --- 1 roots ---------------------------------------------------------------------------

def test_explore_req_1_roots_are_absolute_and_passed_as_add_dir(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli, question: Path,
        tmp_path: Path) -> None:
    fake = minimax(fake_cli, envelope(CITED))
    (branch_repo.root / "docs").mkdir()
    code, err = explore(run_cli, branch_repo.root, question, tmp_path / "a.md",
                        roots=("src", "./docs/", "src"))
    assert code == 0, err
    argv = fake.last_call()["argv"]
    dirs = [argv[i + 1] for i, arg in enumerate(argv) if arg == "--add-dir"]
    assert dirs == [str(branch_repo.root / "src"), str(branch_repo.root / "docs")]


def test_explore_req_1_missing_root_is_a_usage_error(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli, question: Path,
        tmp_path: Path) -> None:
    fake = minimax(fake_cli, envelope(CITED))
    code, err = explore(run_cli, branch_repo.root, question, tmp_path / "a.md",
                        roots=("src", "nowhere"))
    assert code == 1
    assert "--root nowhere: no such file or directory" in err
    assert sessions(fake) == []


@pytest.mark.parametrize("root", ["secrets", "local_secrets", "secrets/deeper", "link"])
def test_explore_req_1_secrets_roots_are_refused(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli, question: Path,
        tmp_path: Path, root: str) -> None:
    for directory in ("secrets/deeper", "local_secrets"):
        (branch_repo.root / directory).mkdir(parents=True)
    (branch_repo.root / "link").symlink_to(branch_repo.root / "secrets")
    fake = minimax(fake_cli, envelope(CITED))
    code, err = explore(run_cli, branch_repo.root, question, tmp_path / "a.md", roots=(root,))
    assert code == 1
    assert "secrets/ or local_secrets/" in err
    assert sessions(fake) == []
    assert not (tmp_path / "a.md").exists()


# --- 2 prompt assembly -----------------------------------------------------------------

def test_explore_req_2_preamble_roots_breadth_then_question_on_stdin(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli, question: Path,
        tmp_path: Path) -> None:
    fake = minimax(fake_cli, envelope(CITED))
    code, _ = explore(run_cli, branch_repo.root, question, tmp_path / "a.md", "--breadth",
                      "very-thorough")
    assert code == 0
    prompt = fake.last_call()["stdin"]
    for phrase in ("Read only", "`path:line`", "at most 10 lines", "NOT FOUND",
                   "Do not guess", "`.env`", "`*.pem`", "`*.key`", "`id_*`", "`secret`",
                   "no builds, tests", "Searches run:"):
        assert phrase in prompt, phrase
    roots_at = prompt.index(f"## Search roots\n- {branch_repo.root}")
    breadth_at = prompt.index("## Breadth\nvery-thorough: sweep every root completely")
    question_at = prompt.index("## Question\nWhere is the login handler defined?")
    assert roots_at < breadth_at < question_at
    assert prompt.rstrip().endswith("Where is the login handler defined?")


def test_explore_req_2_medium_breadth_is_the_default(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli, question: Path,
        tmp_path: Path) -> None:
    fake = minimax(fake_cli, envelope(CITED))
    assert explore(run_cli, branch_repo.root, question, tmp_path / "a.md")[0] == 0
    assert "## Breadth\nmedium: stop as soon as" in fake.last_call()["stdin"]


# --- 3 read-only enforcement -----------------------------------------------------------

def test_explore_req_3_read_only_tools_and_deny_list(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli, question: Path,
        tmp_path: Path) -> None:
    fake = minimax(fake_cli, envelope(CITED))
    assert explore(run_cli, branch_repo.root, question, tmp_path / "a.md")[0] == 0
    assert fake.last_call()["argv"] == [
        "--model", "MiniMax-M3.1-Flash", "--effort", "medium", "--permission-mode", "default",
        "--allowedTools", "Read,Glob,Grep",
        "--disallowedTools", "Write,Edit,MultiEdit,NotebookEdit,Bash,WebFetch,WebSearch",
        "--max-turns", "40", "--output-format", "json", "--add-dir", str(branch_repo.root),
        "-p",
    ]


def test_explore_req_3_m3_sends_no_effort_unless_given(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli, question: Path,
        tmp_path: Path) -> None:
    fake = minimax(fake_cli, envelope(CITED))
    assert explore(run_cli, branch_repo.root, question, tmp_path / "a.md", "--m3")[0] == 0
    argv = fake.last_call()["argv"]
    assert argv[:2] == ["--model", "MiniMax-M3"] and "--effort" not in argv
    assert explore(run_cli, branch_repo.root, question, tmp_path / "a.md", "--m3",
                   "--effort", "xhigh", "--max-turns", "9")[0] == 0
    argv = fake.last_call()["argv"]
    assert argv[:4] == ["--model", "MiniMax-M3", "--effort", "xhigh"]
    assert argv[argv.index("--max-turns") + 1] == "9"


# --- 4 answer channel ------------------------------------------------------------------

def test_explore_req_4_answer_comes_from_result_despite_stdout_noise(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli, question: Path,
        tmp_path: Path) -> None:
    noisy = "Permission to use Bash has been denied.\n" + json.dumps(envelope(CITED))
    minimax(fake_cli, noisy, stderr="warning: something on stderr\n")
    out = tmp_path / "answer.md"
    code, err = explore(run_cli, branch_repo.root, question, out)
    assert code == 0, err
    assert out.read_text() == CITED + "\n"
    assert "something on stderr" not in out.read_text()


def test_explore_req_4_is_error_envelope_is_a_failure_not_an_answer(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli, question: Path,
        tmp_path: Path) -> None:
    fake = minimax(fake_cli, envelope("src/app.py:3 is where it fails", is_error=True))
    out = tmp_path / "answer.md"
    code, err = explore(run_cli, branch_repo.root, question, out)
    assert code == 2
    assert len(sessions(fake)) == 2
    assert not out.exists()
    assert "is_error=true" in err


# --- 5 retry ---------------------------------------------------------------------------

@pytest.mark.parametrize("first", [
    envelope("API Error: invalid system role", is_error=True),
    {"type": "result", "is_error": False},  # exit 0 with no result
])
def test_explore_req_5_one_retry_on_failure_or_missing_result(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli, question: Path,
        tmp_path: Path, first: dict[str, object]) -> None:
    # The install check (`ask-minimax-run --version`) is answered by the fake without
    # consuming the sequence (tests/fakes/fakecli.py).
    fake = minimax(fake_cli, stdout_sequence=[first, envelope(CITED)])
    code, err = explore(run_cli, branch_repo.root, question, tmp_path / "a.md")
    assert code == 0, err
    assert len(sessions(fake)) == 2


def test_explore_req_5_never_retried_on_the_answer_text(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli, question: Path,
        tmp_path: Path) -> None:
    fake = minimax(fake_cli, envelope("It is probably in the auth module."))
    code, _ = explore(run_cli, branch_repo.root, question, tmp_path / "a.md")
    assert code == 3
    assert len(sessions(fake)) == 1


def test_explore_req_5_failure_after_retry_exits_2(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli, question: Path,
        tmp_path: Path) -> None:
    fake = minimax(fake_cli, exit_code=1, stderr="invalid system role")
    code, err = explore(run_cli, branch_repo.root, question, tmp_path / "a.md")
    assert code == 2
    assert len(sessions(fake)) == 2
    assert "invalid system role" in err


def test_explore_req_5_timeout_is_not_retried(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli, question: Path,
        tmp_path: Path) -> None:
    # Well past the 0.5 s timeout; the auth check waits for it too, so no longer than that.
    fake = minimax(fake_cli, envelope(CITED), sleep=2)
    code, _ = explore(run_cli, branch_repo.root, question, tmp_path / "a.md", "--timeout",
                      "0.5")
    assert code == 2
    assert len(sessions(fake)) == 1


# --- 6 citation gate -------------------------------------------------------------------

@pytest.mark.parametrize("answer", ["It is probably in the auth module.",
                                    "It ran at 12:30 and line :42 looked right.", ""])
def test_explore_req_6_uncited_or_empty_answer_is_written_then_exits_3(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli, question: Path,
        tmp_path: Path, answer: str) -> None:
    minimax(fake_cli, envelope(answer))
    out = tmp_path / "answer.md"
    code, err = explore(run_cli, branch_repo.root, question, out)
    assert code == 3
    assert out.read_text() == answer + "\n"
    assert "cites no path:line" in err


def test_explore_req_6_not_found_is_an_answer(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli, question: Path,
        tmp_path: Path) -> None:
    minimax(fake_cli, envelope("NOT FOUND — searched src/ for login handlers.\nSearches run:"))
    out = tmp_path / "answer.md"
    assert explore(run_cli, branch_repo.root, question, out)[0] == 0
    assert out.read_text().startswith("NOT FOUND")


# --- 7 context window -------------------------------------------------------------------

def test_explore_req_7_profile_env_reaches_the_cli_and_window_is_reported(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli, question: Path,
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDE_CODE_MAX_CONTEXT_TOKENS", "1000000")
    fake = minimax(fake_cli, envelope(CITED, context_window=200_000))
    code, err = explore(run_cli, branch_repo.root, question, tmp_path / "a.md")
    assert code == 0
    assert fake.last_call()["env"]["CLAUDE_CODE_MAX_CONTEXT_TOKENS"] == "1000000"
    assert "[mmr] minimax-explore: tokens in 12,345 · out 678 · context 200,000" in err


# --- 8 temporary files -------------------------------------------------------------------

def test_explore_req_8_temp_files_are_removed_and_only_out_survives(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli, question: Path,
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    scratch_root = tmp_path / "tmp"
    scratch_root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch_root))
    minimax(fake_cli, envelope(CITED))
    out = tmp_path / "answer.md"
    assert explore(run_cli, branch_repo.root, question, out)[0] == 0
    assert list(scratch_root.iterdir()) == []
    assert out.exists()
    assert not jobs_dir().exists() or list(jobs_dir().iterdir()) == []


# --- exit codes and usage -------------------------------------------------------------------

def test_explore_exit_1_when_ask_minimax_run_is_missing(
        *, branch_repo: GitRepo, run_cli: RunCli, question: Path, tmp_path: Path) -> None:
    assert shutil.which("ask-minimax-run") is None
    code, err = explore(run_cli, branch_repo.root, question, tmp_path / "a.md")
    assert code == 1
    assert "ask-minimax-run not found on PATH" in err


@pytest.mark.parametrize("extra", [["--effort", "ultra"], ["--breadth", "shallow"],
                                   ["--max-turns", "0"], ["--bogus"]])
def test_explore_usage_errors_exit_1(*, branch_repo: GitRepo, fake_cli: FakeCliFactory,
                                     run_cli: RunCli, question: Path, tmp_path: Path,
                                     extra: list[str]) -> None:
    fake = minimax(fake_cli, envelope(CITED))
    code, _ = explore(run_cli, branch_repo.root, question, tmp_path / "a.md", *extra)
    assert code == 1
    assert sessions(fake) == []


@pytest.mark.parametrize("missing", ["--root", "--prompt-file", "--out"])
def test_explore_required_flags(*, branch_repo: GitRepo, run_cli: RunCli, question: Path,
                                tmp_path: Path, missing: str) -> None:
    args = {"--root": ".", "--prompt-file": str(question), "--out": str(tmp_path / "a.md")}
    del args[missing]
    run = run_cli(main, *[part for pair in args.items() for part in pair], cwd=branch_repo.root)
    assert run.code == 1
    assert missing in run.err


def test_explore_missing_prompt_file_exits_1(*, branch_repo: GitRepo, fake_cli: FakeCliFactory,
                                             run_cli: RunCli, tmp_path: Path) -> None:
    minimax(fake_cli, envelope(CITED))
    code, err = explore(run_cli, branch_repo.root, tmp_path / "absent.md", tmp_path / "a.md")
    assert code == 1
    assert "file not found" in err
