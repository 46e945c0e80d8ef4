"""The pinned claude CLI reviews in the review workspace: it reads the reviewed code, and
nothing secret, untracked or branch-controlled reaches its model.

The loopback model answers the review with ``Read`` tool calls, as a reviewer looking
around the change would: the changed file, the branch's tracked ``.env``, ``CLAUDE.md``,
and an untracked credential file (in the workspace and in the real work tree). The tool
results the CLI sends back are what reached the model.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.realcli.conftest import RealEnv
from tests.realcli.mockapi import REVIEW, Reply

pytestmark = [pytest.mark.realcli, pytest.mark.slow]

SECRET = "sk-proj-" + "Zx9" * 16
UNTRACKED = "untracked-credential-" + "Qw7" * 8
#: An unquoted password in a tracked config file: redacted there, as the diff redacts it.
CONFIG_PASSWORD = "Sup3r" + "S3cretPw42"
CODE = "def divide(a, b):\n    return a / b  # REVIEWED-CODE\n"


def _tool_results(real: RealEnv) -> str:
    """Every tool result the CLI sent back to the model, as one text."""
    return json.dumps([block for r in real.api.requests for m in r.body.get("messages", [])
                       if isinstance(m.get("content"), list)
                       for block in m["content"] if block.get("type") == "tool_result"])


def _reads(workspace: str, repo: Path) -> Reply:
    paths = [f"{workspace}/app.py", f"{workspace}/.env", f"{workspace}/CLAUDE.md",
             f"{workspace}/creds.json", str(repo / "creds.json"), str(repo / ".env"),
             f"{workspace}/deploy/settings.yaml"]
    return Reply(tool_calls=tuple(("Read", {"file_path": p}) for p in paths))


def _hostile_branch(real: RealEnv, marker: Path) -> list[str]:
    """main with a trusted CLAUDE.md; a checked-out branch with the change, a tracked
    ``.env``, its own CLAUDE.md and a settings hook; an untracked credential file. The
    loopback model answers a review turn with the reads; returns the cwd of each."""
    hook = {"hooks": [{"type": "command", "command": f"touch {marker}"}]}
    real.repo.commit({"CLAUDE.md": "TRUSTED-INSTRUCTIONS from main\n"}, "trusted")
    real.repo.branch("feature")
    real.repo.commit({
        "app.py": CODE,
        ".env": f"OPENAI_API_KEY={SECRET}\n",
        "deploy/settings.yaml": f"db_host: db.internal\ndb_password: {CONFIG_PASSWORD}\n",
        "CLAUDE.md": "PLANTED-INSTRUCTIONS from the branch\n",
        ".claude/settings.json": json.dumps({"hooks": {"SessionStart": [hook],
                                                       "PreToolUse": [hook]}}),
    }, "feature")
    (real.repo.root / "creds.json").write_text(json.dumps({"token": UNTRACKED}))
    workspaces: list[str] = []

    def respond(kind: str, body: dict[str, Any]) -> Reply:
        sent = json.dumps(body)
        if kind != "anthropic" or not body.get("tools") or '"tool_result"' in sent:
            return REVIEW
        found = re.search(r"Primary working directory: (/[^\s\\\"]+)", sent)
        if found is None:
            return REVIEW
        workspaces.append(found.group(1))
        return _reads(found.group(1), real.repo.root)

    real.api.respond = respond
    return workspaces


def test_claude_reads_the_reviewed_code_and_nothing_else(real: RealEnv) -> None:
    marker = real.home.parent / "hook-ran"
    workspaces = _hostile_branch(real, marker)
    real.only("claude")
    entry = real.review("claude", "--base", "main")
    assert entry["status"] == "completed", entry

    assert workspaces and Path(workspaces[0]).name.startswith("mmr-grok-ws-"), workspaces
    assert not Path(workspaces[0]).exists()  # removed when the review ended
    sent = json.dumps([r.body for r in real.api.requests])
    results = _tool_results(real)
    assert results != "[]", "claude never sent the tool results back"
    assert "REVIEWED-CODE" in results  # the reviewer read the reviewed file
    assert "TRUSTED-INSTRUCTIONS" in results  # main's CLAUDE.md, not the branch's
    assert "working directory holds a read-only copy" in sent  # the prompt says it is there
    assert "db_password: <redacted:password>" in results  # read, redacted at its path
    for leaked in (SECRET, UNTRACKED, CONFIG_PASSWORD):
        assert leaked not in sent, leaked
    # The branch's CLAUDE.md is in the diff under review (fenced); it never reaches the
    # model as instructions or through a file the reviewer reads.
    systems = json.dumps([r.body.get("system") for r in real.api.requests])
    assert "PLANTED-INSTRUCTIONS" not in systems + results
    assert not marker.exists()  # the branch's .claude/settings.json hook never ran


def test_control_in_the_real_work_tree_the_same_reads_reach_the_model(real: RealEnv) -> None:
    marker = real.home.parent / "hook-ran"
    cwds = _hostile_branch(real, marker)
    real.only("claude", workspace="repo")
    entry = real.review("claude", "--base", "main")
    assert entry["status"] == "completed", entry
    assert cwds == [str(real.repo.root)]
    results = _tool_results(real)
    assert SECRET in results and UNTRACKED in results and "PLANTED-INSTRUCTIONS" in results


def _codex_branch(real: RealEnv, **channel_config: Any) -> list[str]:
    """main with a trusted AGENTS.md; a checked-out branch with the change, a tracked
    ``.env`` and its own AGENTS.md; an untracked credential file. The loopback Responses
    API answers a review turn with ``exec_command`` calls, then the review; returns the
    commands' outputs as codex sent them back. The last four look outside the workspace:
    the environment, the real work tree's untracked file and ``.env``, codex's config."""
    real.repo.commit({"AGENTS.md": "TRUSTED-INSTRUCTIONS from main\n"}, "trusted")
    real.repo.branch("feature")
    real.repo.commit({"app.py": CODE, ".env": f"OPENAI_API_KEY={SECRET}\n",
                      "AGENTS.md": "PLANTED-INSTRUCTIONS from the branch\n"}, "feature")
    (real.repo.root / "creds.json").write_text(json.dumps({"token": UNTRACKED}))
    repo = real.repo.root
    commands = ["pwd", "cat app.py", "cat .env", "cat AGENTS.md", "cat creds.json",
                "touch written.txt", "env", f"cat {repo}/creds.json", f"cat {repo}/.env",
                f"cat {real.env['CODEX_HOME']}/config.toml"]

    def respond(kind: str, body: dict[str, Any]) -> Reply:
        if kind != "responses" or "function_call_output" in json.dumps(body):
            return REVIEW
        return Reply(tool_calls=tuple(("exec_command", {"cmd": c}) for c in commands))

    real.api.respond = respond
    real.only("codex", **channel_config)
    entry = real.review("codex", "--base", "main")
    assert entry["status"] == "completed", entry
    outputs = [item["output"] for r in real.api.requests for item in r.body.get("input", [])
               if isinstance(item, dict) and item.get("type") == "function_call_output"]
    assert len(outputs) == len(commands), outputs
    return outputs


def test_codex_reads_the_reviewed_code_in_the_workspace(real: RealEnv) -> None:
    """The pinned codex CLI runs the loopback model's ``exec_command`` calls in the review
    workspace, under mmr's permission profile: the code is there, the branch's ``.env``,
    its AGENTS.md and the untracked file are not, and nothing can be written."""
    pwd, code, env, agents, untracked, write, *_ = _codex_branch(real)
    assert Path(pwd.rstrip().rsplit("\n", 1)[-1]).name.startswith("mmr-grok-ws-"), pwd
    assert "REVIEWED-CODE" in code
    assert "No such file" in env and SECRET not in env
    assert "TRUSTED-INSTRUCTIONS" in agents
    assert "No such file" in untracked
    assert "Read-only file system" in write
    instructions = json.dumps([r.body.get("instructions") for r in real.api.requests]
                              + [r.body.get("input", [])[:3] for r in real.api.requests])
    assert "PLANTED-INSTRUCTIONS" not in instructions


def test_codex_reads_nothing_outside_the_workspace(real: RealEnv) -> None:
    """A command naming a path outside the workspace runs and finds nothing there: the
    real work tree's untracked credential file and ``.env``, codex's own config and the
    API key in the environment never reach the model (the control below shows they are
    there to read). The user's own codex config asking for full access changes nothing."""
    config = Path(real.env["CODEX_HOME"]) / "config.toml"
    config.write_text('sandbox_mode = "danger-full-access"\n'
                      'shell_environment_policy = { inherit = "all" }\n' + config.read_text())
    env, *outside = _codex_branch(real)[-4:]
    assert all("No such file or directory" in out for out in outside), outside
    assert "PATH=" in env  # the command ran, with the core variables only
    sent = json.dumps([r.body for r in real.api.requests])
    for leaked in (UNTRACKED, SECRET, "env_key", real.env["MOCK_API_KEY"]):
        assert leaked not in sent, leaked


def test_control_codex_plain_read_only_sandbox_reads_outside_the_workspace(
        real: RealEnv) -> None:
    """codex's own ``-s read-only`` sandbox stops writes, not reads: the same commands
    read the real work tree's secrets, codex's config and the API key."""
    plain = ["--skip-git-repo-check", "--ephemeral", "-s", "read-only"]
    env, creds, dotenv, config = _codex_branch(real, flags=plain)[-4:]
    assert UNTRACKED in creds and SECRET in dotenv and "env_key" in config
    assert real.env["MOCK_API_KEY"] in env


def _opencode_branch(real: RealEnv, calls: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """A checked-out branch with the change and a tracked ``.env``; an untracked credential
    file. The loopback chat API answers a review turn with ``calls`` (``{ws}`` in a string
    argument stands for opencode's working directory), then the review; returns what
    opencode sent back as the tool results, in order."""
    real.repo.branch("feature")
    real.repo.commit({"app.py": CODE, ".env": f"OPENAI_API_KEY={SECRET}\n"}, "feature")
    (real.repo.root / "creds.json").write_text(json.dumps({"token": UNTRACKED}))

    def respond(kind: str, body: dict[str, Any]) -> Reply:
        sent = json.dumps(body)
        found = re.search(r"Working directory: (/[^\s\\\"]+)", sent)
        if kind != "chat" or not body.get("tools") or '"role": "tool"' in sent or not found:
            return REVIEW
        ws = found.group(1)
        return Reply(tool_calls=tuple(
            (name, {k: v.replace("{ws}", ws) for k, v in args.items()}) for name, args in calls))

    real.api.respond = respond
    real.only("opencode")
    entry = real.review("opencode", "--base", "main")
    assert entry["status"] == "completed", entry
    return [str(m.get("content")) for r in real.api.requests for m in r.body.get("messages", [])
            if m.get("role") == "tool"]


def test_opencode_reads_the_workspace_and_only_that(real: RealEnv) -> None:
    """The pinned opencode CLI offers its model read-only tools confined to the review
    workspace: the reviewed file reads, the real work tree's untracked file (an absolute
    path outside) does not, and neither a shell nor a write is offered."""
    outside = str(real.repo.root / "creds.json")
    results = _opencode_branch(real, [
        ("read", {"filePath": "{ws}/app.py"}), ("read", {"filePath": outside}),
        ("grep", {"pattern": "token", "path": str(real.repo.root)}),
        ("bash", {"command": f"touch {real.repo.root}/ran", "description": "touch"}),
        ("write", {"filePath": "{ws}/written.txt", "content": "x"})])
    sent = json.dumps([r.body for r in real.api.requests])
    offered = {t["function"]["name"] for r in real.api.sent("chat")
               for t in r.body.get("tools") or []}
    assert len(results) == 5, results
    assert "REVIEWED-CODE" in results[0]  # the tool result reaching the model holds the code
    refused = "prevents you from using this specific tool call"
    assert refused in results[1] and refused in results[2]
    assert UNTRACKED not in sent and SECRET not in sent
    assert not (real.repo.root / "ran").exists()
    assert {"read", "glob", "grep"} <= offered and not offered & {"bash", "write", "edit"}
    assert "working directory holds a read-only copy" in sent
