"""The installed ``mmr`` console script and ``python -m mmr``, run as real processes."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import typer

from mmr import __version__
from mmr.cli.app import COMMANDS, add_command, app, new_root_app
from mmr.cli.groups import command_group

HEAVY = ("pydantic", "yaml", "ruamel", "structlog", "anyio", "httpx", "rich")


def mmr_command() -> list[str]:
    script = Path(sys.executable).with_name("mmr")
    if script.exists():
        return [str(script)]
    found = shutil.which("mmr")
    return [found] if found else [sys.executable, "-m", "mmr"]


def run_mmr(*args: str, command: list[str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*(command or mmr_command()), *args], capture_output=True, text=True,
                          timeout=60, check=False)


@pytest.mark.parametrize("command", [None, [sys.executable, "-m", "mmr"]])
def test_version_prints_only_the_version(command):
    done = run_mmr("--version", command=command)
    assert (done.returncode, done.stdout, done.stderr) == (0, __version__ + "\n", "")


def test_help_and_help_command_print_the_same_to_stdout():
    helped, help_command = run_mmr("--help"), run_mmr("help")
    assert helped.returncode == 0 and helped.stderr == ""
    assert helped.stdout.startswith("Usage: mmr <command> [options]\n")
    assert (help_command.returncode, help_command.stdout) == (0, helped.stdout)


def test_no_command_exits_1_with_the_hint():
    done = run_mmr()
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.endswith("\n\nmmr: error: missing command; run 'mmr --help' for usage\n")


def test_unknown_command_exits_1_not_2():
    done = run_mmr("bogus")
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == "mmr: error: unknown command 'bogus'\nTry 'mmr --help'\n"


def _loaded_heavy_modules(code: str) -> list[str]:
    probe = (f"{code}\nimport sys\n"
             f"print(sorted({{m.split('.')[0] for m in sys.modules}} & {set(HEAVY)!r}))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=60, check=True)
    return eval(done.stdout)  # noqa: S307 - our own probe prints a list literal


def test_importing_the_cli_loads_no_heavy_module():
    assert _loaded_heavy_modules("import mmr.cli.app, mmr.cli.output, mmr.cli.errors") == []


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["review", "--help"],
                                  ["config", "set", "--help"],
                                  ["ack", "prune", "--dry-run", "--help"]])
def test_help_and_version_load_no_heavy_module(args):
    # The commands import the core they run inside their functions (mmr.cli.app, "Imports").
    code = ("import io, contextlib\nfrom mmr.cli.main import main\n"
            f"with contextlib.redirect_stdout(io.StringIO()): assert main({args!r}) == 0")
    assert _loaded_heavy_modules(code) == []


def test_root_lists_commands_in_the_reference_order_whatever_their_kind():
    root = new_root_app()
    add_command(root, lambda: 0, "explore")
    add_command(root, lambda: 0, "doctor")
    add_command(root, command_group("Config."), "config")
    add_command(root, lambda: 0, "review")
    group = typer.main.get_command(root)
    assert group.list_commands(typer.Context(group)) == [
        "review", "config", "doctor", "explore", "help",
    ]


def test_registered_commands_are_the_spec_commands_or_additions():
    group = typer.main.get_command(app)
    names = [n for n in group.list_commands(typer.Context(group)) if n != "help"]
    known = [n for n in names if n in COMMANDS]
    assert names[: len(known)] == known


def test_add_command_registers_functions_and_groups():
    root = new_root_app()
    group = command_group("Things.")
    group.command("list")(lambda: 0)
    add_command(root, lambda: 0, "status")
    add_command(root, group, "jobs")
    assert [c.name for c in root.registered_commands] == ["help", "status"]
    assert [g.name for g in root.registered_groups] == ["jobs"]
