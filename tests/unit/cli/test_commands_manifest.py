"""``mmr commands``: the manifest matches the commands really registered.

The drift test walks the real command tree: every registered command and sub-command must
have a manifest entry and answer ``--help``; every entry's example must parse against the
real command's grammar. Entries for commands not registered yet are skipped by name.
"""

from __future__ import annotations

import json
import re
import shlex

import pytest
import typer

from mmr.cli.app import app
from mmr.cli.argv import normalise
from mmr.cli.introspect import command_spec, is_group, resolve
from mmr.cli.main import main
from mmr.manifest import MANIFEST, manifest_text

ROOT = typer.main.get_command(app)
#: The reference's entries and their ``writes`` flags, in the contract's order.
REFERENCE_ENTRIES = [
    ("review", True), ("critique [input]", True), ("status <job-id>", False),
    ("results <job-id>", False), ("reconcile <job-id>", True), ("jobs <list|prune>", True),
    ("sessions <start|list|show|end>", True), ("ack <add|list|rm|prune>", True),
    ("skill install", True), ("doctor", True), ("config init", True), ("config test", False),
    ("config path", False), ("config channels", False), ("config show <channel>", False),
    ("config enable <channel>", True), ("config disable <channel>", True),
    ("config set <dotted.path> <value>", True), ("config unset <dotted.path>", True),
    ("commands", False), ("explain <topic>", False),
]


def cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def registered_paths() -> list[tuple[str, ...]]:
    """Every visible command path: top-level commands, and each sub-command of a group."""
    paths: list[tuple[str, ...]] = []
    for name, command in ROOT.commands.items():
        if getattr(command, "hidden", False):
            continue
        if is_group(command):
            paths += [(name, sub) for sub, leaf in command.commands.items()
                      if not getattr(leaf, "hidden", False)]
        else:
            paths.append((name,))
    return paths


def covers(entry: str, path: tuple[str, ...]) -> bool:
    """``jobs <list|prune>`` covers ``jobs list``; ``config show <channel>`` covers
    ``config show``; ``review`` covers ``review``."""
    words = entry.split()
    if words[0] != path[0]:
        return False
    if len(path) == 1:
        return True
    if len(words) < 2:
        return False
    alternatives = re.fullmatch(r"<([\w|-]+)>", words[1])
    if alternatives and "|" in alternatives.group(1):
        return path[1] in alternatives.group(1).split("|")
    return words[1] == path[1]


def test_reference_entries_keep_their_order_and_writes_flags():
    names = {entry.command: entry.writes for entry in MANIFEST}
    in_manifest = [(e.command, e.writes) for e in MANIFEST if e.command in dict(REFERENCE_ENTRIES)]
    assert in_manifest == REFERENCE_ENTRIES
    assert all(command in names for command, _ in REFERENCE_ENTRIES)


def test_every_entry_has_a_summary_and_a_runnable_looking_example():
    commands = [entry.command for entry in MANIFEST]
    assert len(commands) == len(set(commands))
    for entry in MANIFEST:
        assert entry.summary.strip() and "\n" not in entry.summary
        assert entry.example.startswith("mmr ")


@pytest.mark.parametrize("path", registered_paths(), ids=" ".join)
def test_every_registered_command_answers_help_and_is_in_the_manifest(capsys, path):
    code, out, err = cli(capsys, *path, "--help")
    assert (code, err) == (0, "")
    assert out.startswith(f"Usage: mmr {' '.join(path)}")
    assert any(covers(entry.command, path) for entry in MANIFEST), path


@pytest.mark.parametrize("entry", MANIFEST, ids=lambda e: e.command)
def test_each_example_parses_against_the_real_command(capsys, entry):
    tokens = shlex.split(entry.example)[1:]
    top = entry.command.split()[0]
    resolved = resolve(ROOT, tokens)
    assert resolved.names and resolved.names[0] == top
    leaf = resolved.path[-1][1]
    assert not is_group(leaf), f"{entry.example!r} names a group, not a command"
    assert covers(entry.command, tuple(resolved.names)), (entry.command, resolved.names)
    normalise(resolved.rest, command_spec(leaf))  # raises on an unknown flag or argument
    code, help_out, _ = cli(capsys, *resolved.names, "--help")
    assert code == 0
    for flag in (t.split("=")[0] for t in resolved.rest if t.startswith("--")):
        assert flag in help_out, f"{flag} is not an option of mmr {' '.join(resolved.names)}"


def test_json_lists_every_field_in_order(capsys):
    code, out, err = cli(capsys, "commands", "--format", "json")
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert [list(item) for item in data] == [["command", "summary", "example", "writes"]] * len(
        MANIFEST)
    assert [item["command"] for item in data] == [entry.command for entry in MANIFEST]
    assert out.startswith('[\n  {\n    "command": "review",')


def test_json_shorthand_wins_over_text(capsys):
    json_out = cli(capsys, "commands", "--json")
    assert json_out == cli(capsys, "commands", "--json", "--format", "text")
    assert json_out == cli(capsys, "commands", "--format", "json")


def test_text_pads_every_command_to_the_widest(capsys):
    code, out, err = cli(capsys, "commands")
    assert (code, err) == (0, "")
    assert out == manifest_text() + "\n"
    width = max(len(entry.command) for entry in MANIFEST)
    for line, entry in zip(out.splitlines(), MANIFEST, strict=True):
        assert line == f"  {entry.command.ljust(width)}  {entry.summary}"


def test_bad_format_is_a_usage_error(capsys):
    code, out, err = cli(capsys, "commands", "--format", "xml")
    assert code == 1 and out == ""
    assert err.startswith("mmr: error: invalid value 'xml' for '--format'")
