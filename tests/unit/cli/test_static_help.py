"""``--help`` from the pre-rendered texts (issue 19) prints exactly what typer prints."""

from __future__ import annotations

import subprocess
import sys

import pytest
import typer

from mmr import __version__
from mmr.cli.app import app
from mmr.cli.dispatch import run
from mmr.cli.help_build import command_paths, render_all
from mmr.cli.help_texts import HELP
from mmr.cli.main import main
from mmr.cli.static_help import static_help

PATHS = list(command_paths(typer.main.get_command(app)))


@pytest.fixture(autouse=True)
def eighty_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")


def both(capsys: pytest.CaptureFixture[str], args: list[str]) -> tuple[tuple[int, str, str], ...]:
    typer_route = (run(args), *capsys.readouterr())
    entry_point = (main(args), *capsys.readouterr())
    return typer_route, entry_point


def test_the_texts_are_current() -> None:
    assert render_all() == HELP, "stale: run python -m mmr.cli.help_build"


def test_every_command_is_covered() -> None:
    assert len(PATHS) >= 35
    assert set(HELP) == {" ".join(path) for path in PATHS}


@pytest.mark.parametrize("path", PATHS, ids=lambda p: " ".join(p) or "mmr")
def test_help_is_byte_identical_to_typers(capsys: pytest.CaptureFixture[str],
                                          path: tuple[str, ...]) -> None:
    assert static_help([*path, "--help"]) is not None
    typer_route, entry_point = both(capsys, [*path, "--help"])
    assert entry_point == typer_route
    assert entry_point[0] == 0 and entry_point[1].startswith("Usage: mmr")
    # `mmr help <command>` prints the same.
    assert (main(["help", *path]), *capsys.readouterr()) == typer_route


@pytest.mark.parametrize("args", [
    ["review", "--bogus", "--help"], ["config", "set", "a.b", "--help"], ["-h", "--help"],
    ["jobs", "--help", "list"], ["review", "--", "--help"], ["review", "--help", "--version"],
    ["help", "bogus"], ["help", "--x"], ["bogus", "--help"],
])
def test_other_lines_answer_as_on_the_typer_route(capsys: pytest.CaptureFixture[str],
                                                  args: list[str]) -> None:
    typer_route, entry_point = both(capsys, args)
    assert entry_point == typer_route


def test_version_wins_over_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert static_help(["review", "--help", "--version"]) is None
    assert main(["review", "--help", "--version"]) == 0
    assert capsys.readouterr().out == __version__ + "\n"


def test_a_narrow_terminal_gets_typers_own_wrapping(capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    assert static_help(["review", "--help"]) is None
    typer_route, entry_point = both(capsys, ["review", "--help"])
    assert entry_point == typer_route
    assert entry_point[1] != HELP["review"]


def test_help_starts_no_typer() -> None:
    code = ("import sys\nfrom mmr.cli.main import main\n"
            "assert main(['review', '--help']) == 0\n"
            "assert 'typer' not in sys.modules and 'pydantic' not in sys.modules\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=False, env={"COLUMNS": "80", "PATH": ""})
    assert done.returncode == 0, done.stderr
    assert done.stdout == HELP["review"]
