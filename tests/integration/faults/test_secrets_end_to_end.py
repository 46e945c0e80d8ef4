"""Nothing secret leaves the machine or lands at rest.

A diff that adds an AWS key pair and a GitHub token goes through ``mmr review --sync``
with four fake channels: two that redact (stdin and prompt-file delivery), one that
refuses, and one configured ``allow`` as the only sanctioned exception. Each fake records
everything it was handed (argv, stdin, prompt file, environment). Afterwards the credentials
must be absent from what the redacting fakes saw, from every file under ``MMR_HOME`` (the
allowing channel's prompt file aside), and from mmr's stdout and stderr; the refusing
channel must never have started; and the verdict is blocked by ``mmr-secrets`` findings.
"""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import yaml

from mmr.config.paths import mmr_home
from tests.fakes.plugin import FakeCli, FakeCliFactory
from tests.integration.faults.conftest import (
    BUILTIN_ENABLED,
    CLEAN,
    NO_COMPENSATOR,
    NO_COMPENSATOR_DEFAULTS,
    RunMmr,
    load_job,
    the_job,
    write_user_config,
)
from tests.integration.git_repo_builder import GitRepo

# Built by concatenation so this file itself never holds a scanner-shaped literal.
GITHUB_TOKEN = "ghp_" + "R3alLook1ngT0ken" * 2 + "abcd"
AWS_KEY_ID = "AKIA" + "QWERTYUIOPASDFGH"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY"
CREDENTIALS = (GITHUB_TOKEN, AWS_KEY_ID, AWS_SECRET)
SOURCE = (
    "import boto3\n"
    f'AWS_ACCESS_KEY_ID = "{AWS_KEY_ID}"\n'
    f'aws_secret_access_key = "{AWS_SECRET}"\n'
    f'GITHUB = "{GITHUB_TOKEN}"\n'
)


def everything_seen(fake: FakeCli) -> str:
    """All a fake was handed, as one string: argv, stdin, prompt file text, environment."""
    return "\n".join(json.dumps(call) for call in fake.calls())


def stored_files() -> dict[Path, bytes]:
    """Every file mmr keeps under ``MMR_HOME`` (jobs, sessions, logs) except the user's own
    ``config.yaml``, which the test wrote with the secrets in it."""
    home = mmr_home()
    return {p: p.read_bytes() for p in home.rglob("*")
            if p.is_file() and not p.is_symlink() and p != home / "config.yaml"}


def test_credentials_reach_no_channel_unredacted_and_block_the_verdict(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    repo.write({"src/cloud.py": SOURCE})
    repo.git("add", "-N", "src/cloud.py")
    stdin_fake = fake_cli("redact-stdin", stdout=CLEAN)
    file_fake = fake_cli("redact-file", stdout=CLEAN, read_prompt_file="last")
    refuser = fake_cli("refuser", stdout=CLEAN)
    allower = fake_cli("allower", stdout=CLEAN, read_prompt_file="last")
    write_user_config({
        "redact-stdin": {"command": "redact-stdin"},
        "redact-file": {"command": "redact-file", "prompt_delivery": "prompt-file"},
        "refuser": {"command": "refuser", "on_credentials": "refuse"},
        "allower": {"command": "allower", "on_credentials": "allow",
                    "prompt_delivery": "prompt-file", "flags": ["--prompt-file"]},
        **NO_COMPENSATOR,
    }, defaults=NO_COMPENSATOR_DEFAULTS)

    result = run_mmr("review", "--sync", cwd=repo.root)

    # The redacting channels saw markers, never a value — on stdin, in the prompt file,
    # in argv or in their environment.
    stdin_prompt = stdin_fake.last_call()["stdin"]
    assert '+AWS_ACCESS_KEY_ID = "<redacted:aws-access-key>"' in stdin_prompt
    assert '+aws_secret_access_key = "<redacted:aws-secret-key>"' in stdin_prompt
    assert '+GITHUB = "<redacted:github-token>"' in stdin_prompt
    assert file_fake.last_call()["prompt_file_text"] == stdin_prompt
    for fake in (stdin_fake, file_fake):
        seen = everything_seen(fake)
        assert not [c for c in CREDENTIALS if c in seen], fake.name
    # The refusing channel never started, is skipped, and is not compensated.
    assert refuser.calls() == []
    assert GITHUB_TOKEN in allower.last_call()["prompt_file_text"]  # `allow` is verbatim
    doc = result.json()
    refused = doc["per_channel"]["refuser"]
    assert refused["status"] == "skipped"
    assert "credential-shaped content in diff" in refused["error"]
    assert not any(name.startswith("compensating-refuser") for name in doc["per_channel"])
    assert load_job()["channels"]["refuser"]["reason"] == "credential_refused"
    # Blocked by mmr's own findings: one per added credential line, P1 security, no value.
    secrets = [f for f in doc["reconciled_findings"] if f["sources"] == ["mmr-secrets"]]
    assert sorted(f["location"] for f in secrets) == [
        "src/cloud.py:2", "src/cloud.py:3", "src/cloud.py:4"]
    assert {(f["severity"], f["category"]) for f in secrets} == {("P1", "security")}
    assert (result.code, doc["verdict"]) == (2, "blocked")
    # Nothing credential-shaped on screen or at rest (the allow channel's prompt file is
    # the documented exception: the operator asked for the verbatim diff there).
    allowed_prompt = the_job() / "channels" / "allower.prompt.txt"
    for credential in CREDENTIALS:
        assert credential not in result.out and credential not in result.err
        for path, data in stored_files().items():
            if path != allowed_prompt:
                assert credential.encode() not in data, path
    assert GITHUB_TOKEN in allowed_prompt.read_text()


def test_job_files_and_directories_are_private(
        tmp_path: Path, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    """Every directory mmr creates is 0700 and every file 0600 — a fresh state root and its
    missing parents included — for prompts, prompt files, outputs, logs and sessions."""
    config = {"version": 1, "channels_disabled": BUILTIN_ENABLED, "channels": {
        "ok": {"command": "ok"},
        "viafile": {"command": "viafile", "prompt_delivery": "prompt-file"},
        "broken": {"command": "broken"}, **NO_COMPENSATOR},
        "defaults": NO_COMPENSATOR_DEFAULTS}
    repo = GitRepo.create(tmp_path / "repo", {"src/app.py": "one\n",
                                              ".mmr.yaml": yaml.safe_dump(config)})
    repo.write({"src/app.py": "two\n"})
    fake_cli("ok", stdout=CLEAN)
    fake_cli("viafile", stdout=CLEAN, read_prompt_file="last")
    fake_cli("broken", stdout="", stderr="quota exceeded", exit_code=1)
    state = tmp_path / "fresh" / "state"
    result = run_mmr("review", "--sync", "--session", "s1", cwd=repo.root,
                     env={"MMR_HOME": str(state)})
    assert result.code in (0, 3), result.err
    names = {p.name for p in state.rglob("*")}
    # each kind of file is covered
    assert {"viafile.prompt.txt", "broken.log", "ok.json", "prompt.txt", "s1.json"} <= names
    for path in [tmp_path / "fresh", state, *state.rglob("*")]:
        mode = stat.S_IMODE(path.stat().st_mode)
        assert mode == (0o700 if path.is_dir() else 0o600), f"{path} has mode {oct(mode)}"


# --- env values and API keys ------------------------------------------------------------

PARENT_KEY = "sk-parent-" + "9f8e7d6c5b4a" * 2
CHANNEL_TOKEN = "tok-channel-" + "1a2b3c4d5e6f" * 2
COMMAND_SECRET = "cmd-secret-" + "0f1e2d3c4b5a" * 2


def _assert_absent(secrets: tuple[str, ...], *texts: str) -> None:
    for secret in secrets:
        for text in texts:
            assert secret not in text
        for path, data in stored_files().items():
            assert secret.encode() not in data, path


def test_env_values_never_reach_logs_job_files_or_errors(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    """Channel ``env`` values, mmr's own API keys and a secret embedded in a command are
    never shown, whatever happens to the channel — with debug logging on."""
    ok = fake_cli("ok", stdout=CLEAN)
    fake_cli("crashes", stdout="", stderr="upstream error 503", exit_code=1)
    fake_cli("hangs", stdout=CLEAN, sleep=30)
    env = {"REVIEW_TOKEN": CHANNEL_TOKEN, "OTHER_API_KEY": CHANNEL_TOKEN}
    write_user_config({
        "ok": {"command": "ok", "env": env, "flags": ["--api-key", CHANNEL_TOKEN]},
        "crashes": {"command": "crashes", "env": env},
        "hangs": {"command": "hangs", "env": env, "timeout": 0.5},
        # A command that starts with KEY=value is never installed: the "not found on PATH"
        # text must not carry the value (MMR 4.0.1 leaks it; docs/differences.md).
        "leaky": {"command": f"REVIEW_SECRET={COMMAND_SECRET} ok"},
        **NO_COMPENSATOR,
    }, defaults=NO_COMPENSATOR_DEFAULTS)
    debug = {"MMR_DEBUG": "1", "OPENAI_API_KEY": PARENT_KEY}

    result = run_mmr("review", "--sync", cwd=repo.root, env=debug)
    dry = run_mmr("review", "--dry-run", cwd=repo.root, env=debug)
    status = run_mmr("status", load_job()["job_id"], cwd=repo.root, env=debug)

    assert ok.last_call()["env"]["REVIEW_TOKEN"] == CHANNEL_TOKEN  # the channel did get it
    per_channel: dict[str, Any] = result.json()["per_channel"]
    assert per_channel["leaky"]["status"] == "not_installed"
    assert per_channel["leaky"]["recovery"] == "<redacted>"
    assert per_channel["crashes"]["status"] == "failed"
    assert per_channel["hangs"]["status"] == "timeout"
    assert "leaky: not_installed — <redacted>" in dry.out
    assert "process.spawned" in result.err  # debug logging really was on
    _assert_absent((PARENT_KEY, CHANNEL_TOKEN, COMMAND_SECRET), result.out, result.err,
                   dry.out, dry.err, status.out, status.err)


def test_nothing_passing_lists_redacted_recoveries(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    """The "No channels passed auth check" error, too, never prints a command's secret."""
    write_user_config({"leaky": {"command": f"API_TOKEN={COMMAND_SECRET} codex"},
                       "relog": {"command": "sh", "auth": {
                           "check": "exit 3", "failure_exit_codes": [3],
                           "recovery": f"relogin --token {COMMAND_SECRET}"}}})
    result = run_mmr("review", "--sync", cwd=repo.root)
    assert result.code == 1
    assert "No channels passed auth check:" in result.err
    assert "  leaky: not_installed — <redacted>" in result.err
    assert "  relog: failed — <redacted>" in result.err
    _assert_absent((COMMAND_SECRET,), result.out, result.err)
