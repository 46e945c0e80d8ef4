"""Every error line starts ``mmr: error:`` (issue 18): a representative failure of each command.

Config refusals (``Unknown channel …``, ``Cannot set …``) and ``doctor --fix`` failures used to
print bare sentences; usage errors printed the whole help first.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli_runner import RunMmr
from tests.integration.git_repo_builder import GitRepo

JOB = "mmr-0123456789ab"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    repo = GitRepo.create(tmp_path / "project", {"README.md": "hello\n"})
    (repo.root / "change.patch").write_text("not a diff\n")
    return repo.root


@pytest.mark.parametrize("argv", [
    ("review", "--diff", "missing.patch"),
    ("review", "--diff", "change.patch", "--channels", "nope"),
    ("review", "--bogus"),
    ("critique", "missing.md"),
    ("status", JOB),
    ("results", JOB),
    ("reconcile", JOB, "--channel", "agent", "--input", "[]"),
    ("config", "show", "nope"),
    ("config", "enable", "nope"),
    ("config", "disable", "gemini", "--global", "--project"),
    ("config", "set", "defaults.fix_treshold", "P1"),
    ("config", "set", "defaults.timeout", "soon"),
    ("config", "set", "channels.x/y.command", "run"),
    ("config", "unset", "defaults.timeout", "--project"),
    ("config", "bogus"),
    ("jobs", "list", "--format", "xml"),
    ("sessions", "show", "nope"),
    ("ack", "rm", "nokey"),
    ("skill", "install", "--platform", "nope"),
    ("explain", "nope"),
    ("comment", "--pr", "0"),
    ("explore", "--question", "where?"),
    ("commands", "--format", "xml"),
    ("doctor", "--format", "xml"),
], ids=" ".join)
def test_a_failure_of_each_command_is_one_mmr_error_line(run_mmr: RunMmr, project: Path,
                                                         argv: tuple[str, ...]) -> None:
    result = run_mmr(*argv, cwd=project)
    assert result.code != 0
    errors = [line for line in result.err.splitlines()
              if line and not line.startswith(("[mmr]", "mmr: warning:", "mmr: note:", "Try '",
                                              "  "))]
    assert errors, result.err
    assert all(line.startswith("mmr: error: ") for line in errors), result.err


def test_a_config_refusal_keeps_its_sentence_behind_the_prefix(run_mmr: RunMmr,
                                                               project: Path) -> None:
    result = run_mmr("config", "enable", "cdoex", cwd=project)
    assert result.code == 1
    assert result.err.startswith("mmr: error: Unknown channel 'cdoex'")


def test_a_broken_project_config_is_one_error_line(run_mmr: RunMmr, project: Path) -> None:
    (project / ".mmr.yaml").write_text("version: 1\ndefaults: [\n")
    for argv in (("config", "test"), ("config", "channels"), ("doctor",)):
        result = run_mmr(*argv, cwd=project)
        assert result.code == 1
        assert result.err.startswith(f"mmr: error: Failed to parse {project / '.mmr.yaml'}")
