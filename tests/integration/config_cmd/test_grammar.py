"""The ``mmr config <action> [name] [target]`` grammar: every usage error exits 1 (ch. 01 §8.1)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.config_cmd.conftest import MmrRunner


@pytest.mark.parametrize(("argv", "message"), [
    (("config",), "Not enough non-option arguments: got 0, need at least 1"),
    (("config", "bogus"), "Unknown argument: bogus"),
    (("config", "channels", "--bogus"), "Unknown argument: bogus"),
    (("config", "channels", "--format", "yaml"), 'Given: "yaml"'),
])
def test_usage_errors_exit_1_under_the_help(mmr: MmrRunner, argv: tuple[str, ...],
                                            message: str):
    run = mmr(*argv)
    assert run.rc == 1
    assert message in run.err
    assert run.out == ""


@pytest.mark.parametrize(("argv", "message"), [
    (("config", "test", "extra"), "Unexpected argument for config test: extra"),
    (("config", "path", "x", "y"), "Unexpected argument for config path: x"),
    (("config", "show", "codex", "grok"), "Unexpected argument for config show: grok"),
    (("config", "unset", "a.b", "c"), "Unexpected argument for config unset: c"),
    (("config", "channels", "show", "codex", "x"), "Unexpected argument for config channels: x"),
    (("config", "channels", "show:codex", "x"), "Unexpected argument for config channels: x"),
    (("config", "unset"), "Usage: mmr config unset <dotted.path>"),
    (("config", "disable"), "Usage: mmr config disable <channel>"),
])
def test_positional_errors_use_the_reference_wording(mmr: MmrRunner, project_file: Path,
                                                     argv: tuple[str, ...], message: str):
    run = mmr(*argv)
    assert (run.rc, run.err.strip(), run.out) == (1, message, "")
    assert not project_file.exists()


def test_config_is_listed_by_mmr_help(mmr: MmrRunner):
    run = mmr("--help")
    assert run.rc == 0
    assert "  config " in run.out


def test_through_a_real_process_and_a_pipe(project: Path):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, "-m", "mmr", "config", "channels"], cwd=project,
                          env=env, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert [row["name"] for row in json.loads(done.stdout)][:2] == ["claude", "gemini"]
