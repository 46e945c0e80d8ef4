"""``mmr config init`` through the real CLI."""

from __future__ import annotations

import re
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from mmr.config.loaded import WorkingTree
from mmr.config.loader import load_config
from mmr.config.yaml_io import parse_yaml
from mmr.config_edit import runtime_probe
from mmr.config_edit.init_config import COMMIT_IT, NO_REVIEWER
from mmr.config_edit.runtime_probe import LocalRuntime
from tests.builtin_channels import BUILTIN_CHANNELS
from tests.fakes.plugin import FakeCliFactory
from tests.integration.config_cmd.conftest import MmrRunner

#: The built-ins ``init`` seeds: all but the retired ones and the explore-role one.
SEEDED = [name for name in BUILTIN_CHANNELS if name not in ("gemini", "minimax-explore")]
RUNTIMES = ["ollama", "lms", "llama-server", "local-ai-delegate"]


def uncomment_examples(text: str) -> str:
    """What a user does to try the examples: drop the ``# `` of each example body line."""
    kept = []
    for line in text.splitlines(keepends=True):
        if line.startswith("#   "):
            kept.append(line[2:])
        elif not line.startswith("# "):
            kept.append(line)
    return "".join(kept)


def test_init_seeds_every_builtin_and_writes_0600(mmr: MmrRunner, project: Path,
                                                  project_file: Path):
    run = mmr("config", "init")
    assert run.rc == 0, run.err
    assert run.out.splitlines() == [
        *(f"  {name}: not found" for name in SEEDED),
        *(f"  {name}: not found" for name in RUNTIMES),
        "",
        f"Created {project_file}",
        COMMIT_IT,
        NO_REVIEWER,
    ]
    assert stat.S_IMODE(project_file.stat().st_mode) == 0o600
    text = project_file.read_text()
    assert text.endswith("\n") and not text.endswith("\n\n")
    for level in ("P0", "P1", "P2", "P3"):
        assert re.search(rf"^\s*#\s+{level}\b", text, re.M), level
    assert re.search(r"^\s*# fix_threshold:", text, re.M)
    assert re.search(r"#\s+P1.*low friction", text) and re.search(r"#\s+P2.*DEFAULT", text)
    assert re.search(r"#\s+P3.*strict", text)
    assert "gemini" not in text and "minimax-explore" not in text
    assert "# example:" not in text and "OSS runtime examples" not in text
    data = parse_yaml(text, "init")
    assert list(data) == ["version", "defaults", "channels"]
    assert data["defaults"] == {"fix_threshold": "P2", "min_completed_channels": 2,
                                "timeout": 300}
    assert list(data["channels"]) == SEEDED
    assert all(channel == {"enabled": False} for channel in data["channels"].values())
    assert load_config(project, project_source=WorkingTree()).defaults.fix_threshold == "P2"


def test_detected_clis_are_seeded_enabled_unless_their_preset_is_off(
        mmr: MmrRunner, project_file: Path, fake_cli: FakeCliFactory):
    for name in ("agy", "claude", "opencode", "ask-minimax-run"):
        fake_cli(name)
    run = mmr("config", "init")
    assert run.rc == 0, run.err
    assert "  antigravity: detected" in run.out.splitlines()
    assert "  opencode: detected" in run.out.splitlines()
    channels = parse_yaml(project_file.read_text(), "init")["channels"]
    assert channels["antigravity"] == {"enabled": True}
    assert channels["claude"] == {"enabled": True}
    assert channels["codex"] == {"enabled": False}
    assert channels["opencode"] == {"enabled": False}  # the preset ships disabled
    assert channels["minimax"] == {"enabled": True}  # on when detected
    assert channels["minimax-m3"] == {"enabled": False}


def test_a_second_run_refuses(mmr: MmrRunner, project_file: Path):
    assert mmr("config", "init").rc == 0
    before = project_file.read_bytes()
    again = mmr("config", "init")
    assert again.rc == 1
    assert again.err.strip() == (
        "mmr: error: .mmr.yaml already exists. Remove it first to re-initialize.")
    assert again.out == ""
    assert project_file.read_bytes() == before


def test_a_dangling_symlink_counts_as_existing(mmr: MmrRunner, project_file: Path,
                                               tmp_path: Path):
    project_file.symlink_to(tmp_path / "missing.yaml")
    assert mmr("config", "init").rc == 1
    assert not (tmp_path / "missing.yaml").exists()


def test_surplus_argument_is_refused_before_anything_runs(mmr: MmrRunner, project_file: Path):
    run = mmr("config", "init", "show")
    assert (run.rc, run.err.strip(), run.out) == (
        1, "mmr: error: unexpected argument 'show'\nTry 'mmr config init --help'", "")
    assert not project_file.exists()


def test_ollama_example_only_when_ollama_is_detected(mmr: MmrRunner, project_file: Path,
                                                     fake_cli: FakeCliFactory):
    fake_cli("ollama")
    fake_cli("lms", exit_code=1)
    run = mmr("config", "init")
    assert "  ollama: detected" in run.out.splitlines()
    assert "  lms: not found" in run.out.splitlines()
    text = project_file.read_text()
    assert "# --- OSS runtime examples (uncomment to enable) ---" in text
    assert re.search(r"^# example: ollama", text, re.M)
    assert not re.search(r"^# example: lms", text, re.M)
    assert text.endswith("\n") and not text.endswith("\n\n")


def test_a_runtime_answering_on_its_port_is_detected(
        mmr: MmrRunner, project_file: Path, monkeypatch: pytest.MonkeyPatch,
        fake_runtime_server: Callable[[dict[str, int]], int],
        quiet_runtimes: tuple[LocalRuntime, ...]):
    port = fake_runtime_server({"/v1/models": 200, "/health": 503})
    runtimes = tuple(
        LocalRuntime(rt.id, rt.command, rt.args, port if rt.id in ("lms", "llama-server")
                     else rt.port, rt.path)
        for rt in quiet_runtimes
    )
    monkeypatch.setattr(runtime_probe, "DEFAULT_RUNTIMES", runtimes)
    run = mmr("config", "init")
    assert run.rc == 0, run.err
    assert "  lms: detected" in run.out.splitlines()
    assert "  llama-server: not found" in run.out.splitlines()  # 503: still loading
    text = project_file.read_text()
    assert re.search(r"^# example: lms \(LM Studio, HTTP\)", text, re.M)
    assert not re.search(r"^# example: llama-server", text, re.M)


def test_with_examples_emits_all_four_and_they_load_uncommented(mmr: MmrRunner, project: Path,
                                                                project_file: Path):
    assert mmr("config", "init", "--with-examples").rc == 0
    text = project_file.read_text()
    for runtime in RUNTIMES:
        assert re.search(rf"^# example: {runtime}", text, re.M), runtime
    assert "# example: lms (LM Studio, HTTP) - requires MMR v3.30+" in text
    assert "# example: llama-server (llama.cpp HTTP) - requires MMR v3.30+" in text
    project_file.write_text(uncomment_examples(text))
    loaded = load_config(project, project_source=WorkingTree())
    assert loaded.channels["qwen-local"].command == "ollama run"
    assert loaded.channels["qwen-local"].abstract is False
    assert loaded.channels["ollama-base"].abstract is True
    assert loaded.channels["lms-local"].kind == "http"
    assert loaded.channels["llama-local"].endpoint == (
        "http://localhost:8080/v1/chat/completions")
    assert loaded.channels["local-ai-delegate-local"].flags == ["--format", "json"]


def test_init_works_while_the_user_config_is_broken(mmr: MmrRunner, user_file: Path,
                                                    project_file: Path):
    user_file.parent.mkdir(parents=True)
    user_file.write_text("defaults: [not, a, mapping\n")
    assert mmr("config", "init").rc == 0
    assert project_file.exists()
    assert mmr("config", "path").rc == 0
