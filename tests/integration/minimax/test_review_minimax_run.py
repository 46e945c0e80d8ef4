"""``review-minimax-run``: every requirement (RM-1–RM-11) and scenario of its spec.

The wrapper runs in-process through its console entry point against real git
repositories; ``ask-minimax-run`` is a fake executable on PATH (or the RM-11 seam).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mmr.wrappers.review_minimax_run import main
from tests.fakes.plugin import FakeCliFactory
from tests.integration.git_repo_builder import GitRepo
from tests.integration.minimax.conftest import (
    SHELL_FINDING,
    RunCli,
    dirtying_minimax,
    envelope,
    minimax,
    write_json,
)

FLASH_ARGV_HEAD = ["--model", "MiniMax-M3.1-Flash", "--effort", "max"]
TOOLS = ["--permission-mode", "default", "--allowedTools", "Read,Glob,Grep",
         "--disallowedTools", "Write,Edit,MultiEdit,NotebookEdit,Bash,WebFetch,WebSearch"]


def default_out(runtime: Path) -> Path:
    return runtime / "review-minimax" / "shop" / "feature-login-findings.md"


# --- scenarios ------------------------------------------------------------------------

def test_scenario_200_line_diff_exits_0_with_a_findings_file(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli,
        quick_retries: Path) -> None:
    body = "".join(f"def handler_{i}(request):\n    return request\n\n" for i in range(66))
    branch_repo.commit({"src/handlers.py": body}, message="add handlers")
    fake = minimax(fake_cli, envelope(SHELL_FINDING))
    run = run_cli(main, "--worktree", str(branch_repo.root), cwd=branch_repo.root)
    assert run.code == 0, run.err
    out = default_out(quick_retries)
    assert run.out.strip() == str(out)
    assert out.read_text() == SHELL_FINDING
    assert "+def handler_65(request):" in fake.last_call()["stdin"]


def test_scenario_aws_key_in_diff_exits_1_before_any_launch(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli) -> None:
    branch_repo.commit({"deploy.sh": "export AWS_KEY=AKIAABCDEFGHIJKLMNOP\n"})
    fake = minimax(fake_cli)
    run = run_cli(main, "--worktree", str(branch_repo.root), cwd=branch_repo.root)
    assert run.code == 1
    assert "diff contains credential-shaped content; review in-session" in run.err
    assert fake.calls() == []


def test_scenario_fake_envelope_without_findings_retries_once_then_exits_3(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli,
        tmp_path: Path, quick_retries: Path) -> None:
    live = minimax(fake_cli)
    fake_json = write_json(tmp_path / "envelope.json",
                           envelope("Review complete; I wrote the findings file."))
    run = run_cli(main, "--worktree", str(branch_repo.root), cwd=branch_repo.root,
                  env={"REVIEW_MINIMAX_FAKE_JSON": str(fake_json)})
    assert run.code == 3
    assert "retrying (attempt 2" in run.err
    assert "after 2 attempt(s)" in run.err
    assert live.calls() == []  # the seam skips the live call
    assert not default_out(quick_retries).exists()


def test_scenario_detached_head_exits_1(*, branch_repo: GitRepo, fake_cli: FakeCliFactory,
                                        run_cli: RunCli) -> None:
    branch_repo.git("checkout", "-q", "--detach", "HEAD")
    fake = minimax(fake_cli)
    run = run_cli(main, "--worktree", str(branch_repo.root), cwd=branch_repo.root)
    assert run.code == 1
    assert "detached" in run.err
    assert fake.calls() == []


# --- RM-1 preflight -------------------------------------------------------------------

def test_rm_1_ask_minimax_run_must_be_on_path(*, branch_repo: GitRepo, run_cli: RunCli) -> None:
    assert shutil.which("ask-minimax-run") is None
    run = run_cli(main, "--worktree", str(branch_repo.root), cwd=branch_repo.root)
    assert run.code == 1
    assert "ask-minimax-run not found on PATH" in run.err


@pytest.mark.parametrize("where", ["missing", "plain-dir"])
def test_rm_1_worktree_must_exist_and_be_a_git_checkout(
        *, tmp_path: Path, fake_cli: FakeCliFactory, run_cli: RunCli, where: str) -> None:
    minimax(fake_cli)
    target = tmp_path / where
    if where == "plain-dir":
        target.mkdir()
    run = run_cli(main, "--worktree", str(target), cwd=tmp_path)
    assert run.code == 1
    assert ("no such file" in run.err) if where == "missing" else ("not a git checkout" in run.err)


@pytest.mark.parametrize("directory", ["secrets", "local_secrets/nested"])
def test_rm_1_worktree_inside_a_secrets_directory_is_refused(
        *, tmp_path: Path, fake_cli: FakeCliFactory, run_cli: RunCli, directory: str) -> None:
    repo = GitRepo.create(tmp_path / directory / "repo", {"a.py": "x = 1\n"})
    fake = minimax(fake_cli)
    run = run_cli(main, "--worktree", str(repo.root), cwd=tmp_path)
    assert run.code == 1
    assert "secrets/" in run.err
    assert fake.calls() == []


def test_rm_1_base_must_resolve(*, branch_repo: GitRepo, fake_cli: FakeCliFactory,
                                run_cli: RunCli) -> None:
    minimax(fake_cli)
    run = run_cli(main, "--worktree", str(branch_repo.root), "--base", "no-such-branch",
                  cwd=branch_repo.root)
    assert run.code == 1
    assert "--base no-such-branch: does not resolve" in run.err


def test_rm_1_relative_worktree_is_resolved(*, branch_repo: GitRepo, fake_cli: FakeCliFactory,
                                            run_cli: RunCli) -> None:
    fake = minimax(fake_cli)
    run = run_cli(main, "--worktree", "shop/src", cwd=branch_repo.root.parent)
    assert run.code == 0, run.err
    argv = fake.last_call()["argv"]
    assert argv[argv.index("--add-dir") + 1] == str(branch_repo.root)


# --- RM-2 input materialisation ---------------------------------------------------------

def test_rm_2_three_dot_diff_with_secret_exclusions_commits_and_stat(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli) -> None:
    branch_repo.commit({
        "secrets/prod.env": "TOKEN=1\n", "local_secrets/a.txt": "x\n", "certs/site.pem": "p\n",
        "keys/deploy.key": "k\n", "config/app_secret.yaml": "s: 1\n", "src/ok.py": "ok = 1\n",
    }, message="add config")
    branch_repo.checkout("main")
    branch_repo.commit({"MAIN_ONLY.md": "moved on\n"}, message="main moved on")
    branch_repo.checkout("feature/login")
    fake = minimax(fake_cli)
    run = run_cli(main, "--worktree", str(branch_repo.root), cwd=branch_repo.root)
    assert run.code == 0, run.err
    prompt = fake.last_call()["stdin"]
    assert "diff --git a/src/ok.py b/src/ok.py" in prompt
    for hidden in ("secrets/prod.env", "local_secrets/a.txt", "site.pem", "deploy.key",
                   "app_secret.yaml", "MAIN_ONLY.md", "main moved on"):
        assert hidden not in prompt
    assert "log every login" in prompt and "add config" in prompt  # commits.txt
    assert "src/app.py | " in prompt  # stat.txt


def test_rm_2_inputs_live_in_a_scratch_dir_removed_on_exit(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli) -> None:
    minimax(fake_cli)
    run = run_cli(main, "--worktree", str(branch_repo.root), "--dryrun", cwd=branch_repo.root)
    assert run.code == 0
    line = next(line for line in run.out.splitlines() if line.startswith("scratch dir:"))
    scratch = Path(line.split()[2])
    assert scratch.name.startswith("review-minimax-")
    assert not scratch.exists()


# --- RM-3 redaction gate ----------------------------------------------------------------

@pytest.mark.parametrize("secret", [
    "ghp_abcdefABCDEF0123456789", "glpat-xxxxxxxxxxxx", "https://x-access-token:abc@github.com",
    "Authorization: Bearer abc", "-----BEGIN RSA PRIVATE KEY-----", "AKIAABCDEFGHIJKLMNOP",
])
def test_rm_3_credential_shaped_diff_exits_1(*, branch_repo: GitRepo, fake_cli: FakeCliFactory,
                                             run_cli: RunCli, secret: str) -> None:
    branch_repo.commit({"src/client.py": f"VALUE = '{secret}'\n"})
    fake = minimax(fake_cli)
    run = run_cli(main, "--worktree", str(branch_repo.root), cwd=branch_repo.root)
    assert run.code == 1
    assert "credential-shaped content" in run.err
    assert fake.calls() == []


def test_rm_3_credential_in_a_commit_message_exits_1(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli) -> None:
    branch_repo.commit({"src/ok.py": "ok = 1\n"}, message="use token ghp_abcdef0123456789")
    fake = minimax(fake_cli)
    run = run_cli(main, "--worktree", str(branch_repo.root), cwd=branch_repo.root)
    assert run.code == 1
    assert "credential-shaped content" in run.err
    assert fake.calls() == []


def test_rm_3_credential_under_an_excluded_path_is_not_sent_and_not_refused(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli) -> None:
    branch_repo.commit({"secrets/aws.txt": "AKIAABCDEFGHIJKLMNOP\n"})
    fake = minimax(fake_cli)
    run = run_cli(main, "--worktree", str(branch_repo.root), cwd=branch_repo.root)
    assert run.code == 0, run.err
    prompt = fake.last_call()["stdin"]
    assert "AKIAABCDEFGHIJKLMNOP" not in prompt
    assert "secrets/aws.txt" not in prompt


# --- RM-4 empty / oversize diff ---------------------------------------------------------

def test_rm_4_empty_diff_exits_1_nothing_to_review(*, tmp_path: Path, fake_cli: FakeCliFactory,
                                                    run_cli: RunCli) -> None:
    repo = GitRepo.create(tmp_path / "repo", {"a.py": "x = 1\n"})
    repo.branch("feature/empty")
    minimax(fake_cli)
    run = run_cli(main, "--worktree", str(repo.root), cwd=repo.root)
    assert run.code == 1
    assert "nothing to review" in run.err


def test_rm_4_oversize_diff_exits_1_with_the_count(*, branch_repo: GitRepo,
                                                    fake_cli: FakeCliFactory,
                                                    run_cli: RunCli) -> None:
    fake = minimax(fake_cli)
    run = run_cli(main, "--worktree", str(branch_repo.root), "--max-diff-lines", "5",
                  cwd=branch_repo.root)
    assert run.code == 1
    assert "diff too large: 10 lines > 5" in run.err
    assert fake.calls() == []


# --- RM-5 prompt contract ---------------------------------------------------------------

def test_rm_5_prompt_holds_the_contract_checklist_and_findings_format(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli) -> None:
    fake = minimax(fake_cli)
    assert run_cli(main, "--worktree", str(branch_repo.root), cwd=branch_repo.root).code == 0
    prompt = fake.last_call()["stdin"]
    for phrase in ("first-pass code reviewer", "non-interactively", "Write nothing",
                   "Run nothing and fix nothing", "Never improvise on missing input",
                   "verify=False", "chmod 777", "curl ... | bash", ":latest", "IF NOT EXISTS",
                   "|| true", "Missing locking", "### [SEVERITY]", "BLOCKER", "SHOULD-FIX",
                   "Confidence: confirmed", "NO FINDINGS", "at most 10"):
        assert phrase in prompt, phrase
    assert prompt.index("Core checklist") < prompt.index("```diff") < prompt.index("Reply format")


def test_rm_5_profile_appends_its_checklist_from_config(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli) -> None:
    branch_repo.checkout("main")
    branch_repo.commit({".mmr.yaml": "templates:\n  agent-runtimes:\n    criteria:\n"
                                     "      - \"fixtures are reset between tests\"\n"})
    branch_repo.checkout("feature/login")
    branch_repo.git("merge", "-q", "main", "-m", "sync")
    fake = minimax(fake_cli)
    run = run_cli(main, "--worktree", str(branch_repo.root), "--profile", "agent-runtimes",
                  cwd=branch_repo.root)
    assert run.code == 0, run.err
    assert "- fixtures are reset between tests" in fake.last_call()["stdin"]


def test_rm_5_unknown_profile_exits_1(*, branch_repo: GitRepo, fake_cli: FakeCliFactory,
                                      run_cli: RunCli) -> None:
    minimax(fake_cli)
    run = run_cli(main, "--worktree", str(branch_repo.root), "--profile", "agent-runtimes",
                  cwd=branch_repo.root)
    assert run.code == 1
    assert "templates.agent-runtimes.criteria" in run.err


def test_rm_5_branch_config_cannot_change_the_reviewer(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli) -> None:
    """The reviewed branch's own .mmr.yaml is ignored: only the base ref's is read."""
    branch_repo.commit({".mmr.yaml": "channels:\n  minimax:\n    flags: [\"--yolo\"]\n"})
    fake = minimax(fake_cli)
    assert run_cli(main, "--worktree", str(branch_repo.root), cwd=branch_repo.root).code == 0
    assert "--yolo" not in fake.last_call()["argv"]


# --- RM-6 invocation --------------------------------------------------------------------

def test_rm_6_invocation_flags_and_prompt_on_stdin(*, branch_repo: GitRepo,
                                                   fake_cli: FakeCliFactory,
                                                   run_cli: RunCli) -> None:
    fake = minimax(fake_cli)
    assert run_cli(main, "--worktree", str(branch_repo.root), cwd=branch_repo.root).code == 0
    call = fake.last_call()
    assert call["argv"] == [*FLASH_ARGV_HEAD, *TOOLS, "--max-turns", "40", "--output-format",
                            "json", "--add-dir", str(branch_repo.root), "-p"]
    assert "+    os.system('audit ' + user)" in call["stdin"]
    assert Path(call["cwd"]) != branch_repo.root  # a fresh neutral directory


def test_rm_6_review_session_gets_no_write_tool(*, branch_repo: GitRepo, fake_cli: FakeCliFactory,
                                                run_cli: RunCli) -> None:
    """Deliberate tightening: findings come back in the envelope, so Write is denied."""
    fake = minimax(fake_cli)
    assert run_cli(main, "--worktree", str(branch_repo.root), cwd=branch_repo.root).code == 0
    argv = fake.last_call()["argv"]
    assert "Write" not in argv[argv.index("--allowedTools") + 1].split(",")
    assert "Write" in argv[argv.index("--disallowedTools") + 1].split(",")


def test_rm_6_m3_pins_the_1m_window_and_sends_no_effort(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli) -> None:
    fake = minimax(fake_cli)
    assert run_cli(main, "--worktree", str(branch_repo.root), "--m3", "--max-turns", "12",
                   cwd=branch_repo.root).code == 0
    argv = fake.last_call()["argv"]
    assert argv[:2] == ["--model", "MiniMax-M3[1m]"]
    assert "--effort" not in argv
    assert argv[argv.index("--max-turns") + 1] == "12"


def test_rm_6_effort_is_passed_through(*, branch_repo: GitRepo, fake_cli: FakeCliFactory,
                                       run_cli: RunCli) -> None:
    fake = minimax(fake_cli)
    assert run_cli(main, "--worktree", str(branch_repo.root), "--m3", "--effort", "high",
                   cwd=branch_repo.root).code == 0
    assert fake.last_call()["argv"][:4] == ["--model", "MiniMax-M3[1m]", "--effort", "high"]


@pytest.mark.parametrize("effort", ["extreme", "MAX", ""])
def test_rm_6_unknown_effort_exits_1(*, branch_repo: GitRepo, fake_cli: FakeCliFactory,
                                     run_cli: RunCli, effort: str) -> None:
    fake = minimax(fake_cli)
    run = run_cli(main, "--worktree", str(branch_repo.root), "--effort", effort,
                  cwd=branch_repo.root)
    assert run.code == 1
    assert "low|medium|high|xhigh|max" in run.err
    assert fake.calls() == []


# --- RM-7 clean-tree assertion ----------------------------------------------------------

def test_rm_7_dirtied_worktree_exits_2_reported_not_reverted(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli,
        quick_retries: Path) -> None:
    dirt = branch_repo.root / "src" / "scratch.py"
    dirtying_minimax(fake_cli, dirt, envelope(SHELL_FINDING))
    run = run_cli(main, "--worktree", str(branch_repo.root), cwd=branch_repo.root)
    assert run.code == 2
    assert "changed the worktree" in run.err
    assert "?? src/scratch.py" in run.err
    assert dirt.read_text() == "dirt\n"  # reported, never reverted
    assert not default_out(quick_retries).exists()


def test_rm_7_existing_dirt_is_not_blamed_on_the_session(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli) -> None:
    (branch_repo.root / "notes.txt").write_text("the operator's own notes\n")
    minimax(fake_cli)
    assert run_cli(main, "--worktree", str(branch_repo.root), cwd=branch_repo.root).code == 0


# --- RM-8 result gate -------------------------------------------------------------------

def test_rm_8_no_findings_passes_the_gate(*, branch_repo: GitRepo, fake_cli: FakeCliFactory,
                                          run_cli: RunCli, quick_retries: Path) -> None:
    minimax(fake_cli, envelope("NO FINDINGS"))
    run = run_cli(main, "--worktree", str(branch_repo.root), cwd=branch_repo.root)
    assert run.code == 0
    assert default_out(quick_retries).read_text() == "NO FINDINGS\n"


@pytest.mark.parametrize("citation", ["`src/missing.py:4`", "see line :42", "at 12:30 today"])
def test_rm_8_findings_must_cite_an_existing_path(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli, citation: str) -> None:
    text = f"### [SHOULD-FIX] Something odd\n{citation}\nCategory: correctness\n"
    fake = minimax(fake_cli, envelope(text))
    run = run_cli(main, "--worktree", str(branch_repo.root), cwd=branch_repo.root)
    assert run.code == 3
    assert len(fake.calls()) == 2


def test_rm_8_out_option_writes_the_file_where_asked(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli, tmp_path: Path) -> None:
    minimax(fake_cli, envelope(SHELL_FINDING))
    out = tmp_path / "reports" / "login.md"
    run = run_cli(main, "--worktree", str(branch_repo.root), "--out", str(out),
                  cwd=branch_repo.root)
    assert run.code == 0
    assert out.read_text() == SHELL_FINDING
    assert run.out.strip() == str(out)


# --- RM-9 retry -------------------------------------------------------------------------

def test_rm_9_minimax_error_is_retried_once_and_can_recover(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli) -> None:
    fake = minimax(fake_cli, stdout_sequence=[
        envelope("API Error: invalid system role", is_error=True), envelope(SHELL_FINDING)])
    run = run_cli(main, "--worktree", str(branch_repo.root), cwd=branch_repo.root)
    assert run.code == 0, run.err
    assert len(fake.calls()) == 2


def test_rm_9_error_after_retry_exits_2(*, branch_repo: GitRepo, fake_cli: FakeCliFactory,
                                        run_cli: RunCli) -> None:
    fake = minimax(fake_cli, envelope("API Error: invalid system role", is_error=True))
    run = run_cli(main, "--worktree", str(branch_repo.root), cwd=branch_repo.root)
    assert run.code == 2
    assert len(fake.calls()) == 2
    assert "invalid system role" in run.err


def test_rm_9_nonzero_exit_after_retry_exits_2(*, branch_repo: GitRepo, fake_cli: FakeCliFactory,
                                               run_cli: RunCli) -> None:
    fake = minimax(fake_cli, exit_code=1, stderr="connection reset")
    run = run_cli(main, "--worktree", str(branch_repo.root), cwd=branch_repo.root)
    assert run.code == 2
    assert len(fake.calls()) == 2


def test_rm_9_exit_0_without_output_is_retried_then_exits_2(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli) -> None:
    fake = minimax(fake_cli, "")
    assert run_cli(main, "--worktree", str(branch_repo.root), cwd=branch_repo.root).code == 2
    assert len(fake.calls()) == 2


def test_rm_9_timeout_is_never_retried(*, branch_repo: GitRepo, fake_cli: FakeCliFactory,
                                       run_cli: RunCli) -> None:
    fake = minimax(fake_cli, sleep=5)
    run = run_cli(main, "--worktree", str(branch_repo.root), "--timeout", "0.5",
                  cwd=branch_repo.root)
    assert run.code == 2
    assert len(fake.calls()) == 1
    assert "timed out" in run.err


def test_rm_9_stale_findings_file_is_removed(*, branch_repo: GitRepo, fake_cli: FakeCliFactory,
                                             run_cli: RunCli, quick_retries: Path) -> None:
    out = default_out(quick_retries)
    out.parent.mkdir(parents=True)
    out.write_text("NO FINDINGS\n")  # from an earlier run: must not pass for this one
    minimax(fake_cli, envelope("I could not finish."))
    assert run_cli(main, "--worktree", str(branch_repo.root), cwd=branch_repo.root).code == 3
    assert not out.exists()


# --- RM-10 telemetry --------------------------------------------------------------------

def test_rm_10_telemetry_goes_to_stderr(*, branch_repo: GitRepo, fake_cli: FakeCliFactory,
                                        run_cli: RunCli) -> None:
    minimax(fake_cli, envelope(SHELL_FINDING, input_tokens=1234, output_tokens=56))
    run = run_cli(main, "--worktree", str(branch_repo.root), cwd=branch_repo.root)
    assert run.code == 0
    line = next(line for line in run.err.splitlines() if "tokens in" in line)
    assert "tokens in 1,234 · out 56 · context 1,000,000 · cost $0.0123 · turns 7" in line
    assert line.rstrip().endswith("s")  # wall clock
    assert "warning" not in run.err


def test_rm_10_a_200k_window_is_flagged(*, branch_repo: GitRepo, fake_cli: FakeCliFactory,
                                        run_cli: RunCli) -> None:
    minimax(fake_cli, envelope(context_window=200_000))
    run = run_cli(main, "--worktree", str(branch_repo.root), "--m3", cwd=branch_repo.root)
    assert run.code == 0
    assert "200,000-token context window, not 1M" in run.err


# --- RM-11 test seam --------------------------------------------------------------------

def test_rm_11_fake_findings_play_the_sessions_output(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli, tmp_path: Path,
        quick_retries: Path) -> None:
    live = minimax(fake_cli)
    fake_json = write_json(tmp_path / "envelope.json", envelope("Findings written."))
    findings = tmp_path / "findings.md"
    findings.write_text(SHELL_FINDING)
    run = run_cli(main, "--worktree", str(branch_repo.root), cwd=branch_repo.root,
                  env={"REVIEW_MINIMAX_FAKE_JSON": str(fake_json),
                       "REVIEW_MINIMAX_FAKE_FINDINGS": str(findings)})
    assert run.code == 0, run.err
    assert default_out(quick_retries).read_text() == SHELL_FINDING
    assert "tokens in 12,345" in run.err  # telemetry from the canned envelope
    assert live.calls() == []


def test_rm_11_fake_findings_still_face_the_gate(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli, tmp_path: Path) -> None:
    minimax(fake_cli)
    write_json(tmp_path / "envelope.json", envelope("done"))
    findings = tmp_path / "findings.md"
    findings.write_text("### [NIT] Typo\n`src/nowhere.py:1`\n")
    run = run_cli(main, "--worktree", str(branch_repo.root), cwd=tmp_path,
                  env={"REVIEW_MINIMAX_FAKE_JSON": "envelope.json",
                       "REVIEW_MINIMAX_FAKE_FINDINGS": str(findings)})
    assert run.code == 3  # a relative fake path is taken from the caller's directory
    assert "retrying (attempt 2" in run.err


def test_rm_11_fake_error_envelope_exits_2(*, branch_repo: GitRepo, fake_cli: FakeCliFactory,
                                           run_cli: RunCli, tmp_path: Path) -> None:
    minimax(fake_cli)
    fake_json = write_json(tmp_path / "envelope.json", envelope("boom", is_error=True))
    run = run_cli(main, "--worktree", str(branch_repo.root), cwd=branch_repo.root,
                  env={"REVIEW_MINIMAX_FAKE_JSON": str(fake_json)})
    assert run.code == 2


def test_rm_11_missing_fake_file_exits_1(*, branch_repo: GitRepo, fake_cli: FakeCliFactory,
                                         run_cli: RunCli, tmp_path: Path) -> None:
    minimax(fake_cli)
    run = run_cli(main, "--worktree", str(branch_repo.root), cwd=branch_repo.root,
                  env={"REVIEW_MINIMAX_FAKE_JSON": str(tmp_path / "absent.json")})
    assert run.code == 1
    assert "REVIEW_MINIMAX_FAKE_JSON" in run.err


# --- dry run and usage ------------------------------------------------------------------

def test_dryrun_prints_config_inputs_prompt_and_command_and_invokes_nothing(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli,
        quick_retries: Path) -> None:
    fake = minimax(fake_cli)
    run = run_cli(main, "--worktree", str(branch_repo.root), "-n", "--effort", "low",
                  cwd=branch_repo.root)
    assert run.code == 0
    out = run.out
    for expected in (f"worktree:       {branch_repo.root}", "branch:         feature/login",
                     "base:           main", f"out:            {default_out(quick_retries)}",
                     "profile:        none", "max diff lines: 6000", "max turns:      40",
                     "timeout:        540s", "diff lines:     10",
                     "stat:           1 file changed, 3 insertions(+)", "--- prompt ---",
                     "Core checklist", "```diff"):
        assert expected in out, expected
    command = out.rstrip().splitlines()[-1]
    assert command.startswith("ask-minimax-run --model MiniMax-M3.1-Flash --effort low ")
    assert command.endswith(f"--add-dir {branch_repo.root} -p < prompt")
    assert fake.calls() == []
    assert not default_out(quick_retries).exists()


@pytest.mark.parametrize("args", [[], ["--worktree"], ["--worktree", ".", "--bogus"],
                                  ["--worktree", ".", "--max-turns", "many"]])
def test_usage_errors_exit_1(*, branch_repo: GitRepo, run_cli: RunCli, args: list[str]) -> None:
    run = run_cli(main, *args, cwd=branch_repo.root)
    assert run.code == 1
    assert "review-minimax-run: error:" in run.err


def test_help_exits_0(*, branch_repo: GitRepo, run_cli: RunCli) -> None:
    run = run_cli(main, "--help", cwd=branch_repo.root)
    assert run.code == 0
    assert "--dryrun" in run.out and "--profile" in run.out
