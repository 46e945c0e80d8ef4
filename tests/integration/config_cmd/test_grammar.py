"""The ``mmr config <action> [name] [target]`` grammar: every usage error exits 1."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.config_cmd.conftest import MmrRunner


@pytest.mark.parametrize(("argv", "message"), [
    (("config",), "mmr: error: missing command\nTry 'mmr config --help'"),
    (("config", "bogus"), "mmr: error: unknown command 'bogus'"),
    (("config", "channels", "--bogus"), "mmr: error: unknown option '--bogus'"),
    (("config", "channels", "--format", "yaml"), "mmr: error: invalid value 'yaml'"),
])
def test_usage_errors_exit_1_with_one_line(mmr: MmrRunner, argv: tuple[str, ...],
                                            message: str):
    run = mmr(*argv)
    assert run.rc == 1
    assert message in run.err
    assert run.out == ""


@pytest.mark.parametrize(("argv", "message"), [
    (("config", "test", "extra"), "unexpected argument 'extra'"),
    (("config", "path", "x", "y"), "unexpected argument 'x'"),
    (("config", "show", "codex", "grok"), "unexpected argument 'grok'"),
    (("config", "unset", "a.b", "c"), "unexpected argument 'c'"),
    (("config", "channels", "show", "codex", "x"), "unexpected argument 'x'"),
    (("config", "channels", "show:codex", "x"), "unexpected argument 'x'"),
    (("config", "unset"), "missing argument <dotted.path>"),
    (("config", "disable"), "missing argument <channel>"),
])
def test_positional_errors_name_the_argument(mmr: MmrRunner, project_file: Path,
                                             argv: tuple[str, ...], message: str):
    run = mmr(*argv)
    command = " ".join(argv[:2])
    assert (run.rc, run.err, run.out) == (
        1, f"mmr: error: {message}\nTry 'mmr {command} --help'\n", "")
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
