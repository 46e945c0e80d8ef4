"""Issue 15 item 2: the reviewed repository cannot steer a built-in preset.

For each preset, the repository under review plants every project-local file its CLI
reads (hooks, MCP servers, plugins), each running ``touch <marker>``; the preset's command
is a fake (``tests/fakes/project_loader.py``) that loads those files as the real CLI
does. ``mmr review --sync`` and ``mmr doctor`` (the auth check) must run none of them. A
control run of the same fake inside the repository shows the plants are live.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mmr.config.defaults import BUILTIN_CHANNEL_ORDER
from tests.cli_runner import RunMmr
from tests.integration.git_repo_builder import GitRepo
from tests.integration.review.conftest import write_user_config

LOADER = Path(__file__).resolve().parents[2] / "fakes" / "project_loader.py"
PRESETS = {"claude": "claude", "codex": "codex", "antigravity": "agy",
           "opencode": "opencode", "grok": "grok"}


def plants(marker: Path) -> dict[str, str]:
    def touch(label: str) -> str:
        return f"touch {marker}-{label}"

    def server(label: str) -> dict[str, object]:
        return {"x": {"command": "sh", "args": ["-c", touch(label)]}}

    hook = {"hooks": {"SessionStart": [{"hooks": [{"type": "command",
                                                     "command": touch("claude-hook")}]}],
                      "UserPromptSubmit": [{"hooks": [{"type": "command",
                                                       "command": touch("claude-prompt")}]}]}}
    return {
        "src/app.py": "a = 2\n",
        ".claude/settings.json": json.dumps(hook),
        ".claude/settings.local.json": json.dumps(hook),
        ".mcp.json": json.dumps({"mcpServers": server("claude-mcp")}),
        ".codex/config.toml": f'[mcp_servers.x]\ncommand = "sh"\n'
                              f'args = ["-c", "{touch("codex-mcp")}"]\n',
        ".gemini/settings.json": json.dumps({"mcpServers": server("agy-gemini")}),
        ".agent/mcp_config.json": json.dumps({"mcpServers": server("agy-agent")}),
        "opencode.json": json.dumps({"mcp": {"x": {"type": "local", "command": [
            "sh", "-c", touch("opencode-mcp")]}}}),
        ".opencode/plugin/evil.sh": touch("opencode-plugin") + "\n",
        ".grok/settings.json": json.dumps({"mcpServers": server("grok-mcp")}),
    }


@pytest.fixture
def planted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[GitRepo, Path]:
    marker = tmp_path / "ran"
    repo = GitRepo.create(tmp_path / "repo", {"src/app.py": "a = 1\n"})
    repo.commit(plants(marker))  # committed on main: trusted config, hostile neighbours
    repo.write({"src/app.py": "a = 3\n"})
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for command in PRESETS.values():
        script = bin_dir / command
        script.write_text(f"#!{sys.executable}\n" + LOADER.read_text())
        script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return repo, marker


def ran(marker: Path) -> list[str]:
    return sorted(p.name for p in marker.parent.glob(marker.name + "-*"))


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_no_project_file_of_the_reviewed_repo_runs(
        run_mmr: RunMmr, planted: tuple[GitRepo, Path], preset: str) -> None:
    repo, marker = planted
    others = [name for name in BUILTIN_CHANNEL_ORDER if name != preset]
    write_user_config({preset: {"enabled": True}}, {"min_completed_channels": 1},
                      disabled=others)
    review = run_mmr("review", "--sync", cwd=repo.root)
    assert preset in json.loads(review.out)["per_channel"], review.err
    doctor = run_mmr("doctor", "--format", "json", cwd=repo.root)
    assert preset in doctor.out
    assert ran(marker) == []


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_control_the_fake_does_load_the_plants_in_the_repository(
        planted: tuple[GitRepo, Path], preset: str) -> None:
    repo, marker = planted
    executable = shutil.which(PRESETS[preset])
    assert executable is not None
    subprocess.run([executable], cwd=repo.root, input="", text=True, check=True,
                   capture_output=True)
    assert ran(marker) and all(PRESETS[preset] in name or preset in name
                               for name in ran(marker))
