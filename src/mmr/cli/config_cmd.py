"""``mmr config``: init, test, channels, path, show, schema, enable, disable, set, unset.

The sub-commands of MMR 4.0.1, plus ``schema`` (an mmr addition).

Each sub-command takes its positionals as one list, so a surplus or missing one is a usage
error (``unexpected argument 'x'`` / ``missing argument <value>``, then ``Try 'mmr config
set --help'``); both exit 1 before any file is touched. Refusals keep MMR 4.0.1's
sentences (scripts grep them); they, like config load errors, reach the common error
boundary (one ``mmr: error:`` line, exit 1). The work happens in ``mmr.config_edit``
(views, toggle, set_unset, init_config, probe_report), imported when a sub-command runs
(see "Imports" in :mod:`mmr.cli.app`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from mmr.cli.config_args import (
    ConfigCommand,
    as_json,
    missing,
    positionals,
    positionals_argument,
    unexpected,
)
from mmr.cli.groups import command_group
from mmr.cli.output import write_report
from mmr.config.paths import find_project_root, project_config_path, user_config_path
from mmr.config_edit.command_errors import ConfigCommandError
from mmr.log import stderr_line

if TYPE_CHECKING:
    from pathlib import Path

    from mmr.config.loaded import LoadedConfig

app = command_group("Show, check and edit the mmr configuration.")

GlobalFlag = Annotated[bool, typer.Option(
    "--global", help="Write the user file (<mmr home>/config.yaml).")]
ProjectFlag = Annotated[bool, typer.Option(
    "--project", help="Write the project .mmr.yaml (at the git top-level).")]
RedactFlag = Annotated[bool, typer.Option(
    "--redact/--no-redact", help="Hide secrets in commands, env and headers (default).")]


@app.command("init", cls=ConfigCommand)
def init(
    *,
    with_examples: Annotated[bool, typer.Option(
        "--with-examples", help="Add every local-runtime example, detected or not.")] = False,
    user_file: Annotated[bool, typer.Option(
        "--global", help="Write the user file (`mmr config path`) instead: this machine "
                         "only, nothing to commit.")] = False,
    args: Annotated[list[str] | None, positionals_argument("")] = None,
) -> int:
    """Create .mmr.yaml with the channels installed here enabled."""
    from mmr.config_edit.init_config import init_project_config

    positionals("init", args, 0)
    init_project_config(find_project_root(), with_examples=with_examples, say=write_report,
                        user_file=user_file)
    return 0


@app.command("test", cls=ConfigCommand)
def test(*, args: Annotated[list[str] | None, positionals_argument("")] = None,
         trust_project_config: Annotated[bool, typer.Option(
             "--trust-project-config", help="Run the check commands of the working-tree "
             ".mmr.yaml even when the checked-out branch changed it.")] = False) -> int:
    """Check that every enabled channel is installed and logged in (JSON; exit 1 if not)."""
    from mmr.config_edit.probe_report import config_test_report
    from mmr.config_edit.scope import load_for_probes

    positionals("test", args, 0)
    root = find_project_root()
    loaded, _ = load_for_probes(root, trust_project_config=trust_project_config,
                                on_warning=stderr_line)
    report, ok = config_test_report(loaded)
    if not trust_project_config:
        _mark_unseen(report, root, loaded)
    write_report(as_json(report))
    return 0 if ok else 1


def _mark_unseen(report: dict[str, dict[str, object]], root: Path, loaded: LoadedConfig) -> None:
    """Say which working channels review will not load (an uncommitted or non-git file)."""
    from mmr.config_edit.unseen import unseen_by_review

    unseen = unseen_by_review(root, loaded)
    if unseen is None:
        return
    working = tuple(name for name in unseen.names if report.get(name, {}).get("installed"))
    if not working:
        return
    stderr_line(replace(unseen, names=working).warning())
    for name in working:
        report[name] |= {"used_by_review": False, "note": unseen.note}


@app.command("channels", cls=ConfigCommand)
def channels(
    *,
    fmt: Annotated[Literal["json", "text"], typer.Option(
        "--format", help="json (default) or a text table.")] = "json",
    redact: RedactFlag = True,
    args: Annotated[list[str] | None,
                    positionals_argument("[show <channel> | show:<channel>]")] = None,
) -> int:
    """List the channels (enabled, effective, source), or show one."""
    from mmr.config_edit.scope import load
    from mmr.config_edit.views import LIST_NO_REDACT_WARNING, channel_rows, channels_table

    action, target = positionals("channels", args, 2)
    if action is None:
        if not redact:
            stderr_line(LIST_NO_REDACT_WARNING)
        rows = channel_rows(load(find_project_root()), redact=redact)
        write_report(as_json(rows) if fmt == "json" else channels_table(rows))
        return 0
    if action.startswith("show:"):
        if target is not None:
            unexpected("channels", target)
        return _show(action[len("show:"):].strip(), redact)
    if action != "show":
        unexpected("channels", action, f"show {action}")
    if target is None:
        missing("<channel>")
    return _show(target, redact)


@app.command("show", cls=ConfigCommand)
def show(*, redact: RedactFlag = True,
         args: Annotated[list[str] | None, positionals_argument("<channel>")] = None) -> int:
    """Show one channel's fields, each with the layer it came from."""
    (name,) = positionals("show", args, 1)
    if name is None:
        missing("<channel>")
    return _show(name, redact)


@app.command("path", cls=ConfigCommand)
def path(*, args: Annotated[list[str] | None, positionals_argument("")] = None) -> int:
    """Print where config is read from and written to."""
    from mmr.config_edit.unseen import project_file_note
    from mmr.config_edit.views import paths_report

    positionals("path", args, 0)
    root = find_project_root()
    project = project_config_path(root)
    write_report(paths_report(user_config_path(), project, project_file_note(project, root)))
    return 0


@app.command("schema", cls=ConfigCommand)
def schema(*, args: Annotated[list[str] | None, positionals_argument("")] = None) -> int:
    """Print the JSON Schema of a config file (.mmr.yaml, config.yaml)."""
    from mmr.config_edit.json_schema import render_schema

    positionals("schema", args, 0)
    write_report(render_schema())
    return 0


@app.command("enable", cls=ConfigCommand)
def enable(*, global_: GlobalFlag = False, project: ProjectFlag = False,
           args: Annotated[list[str] | None, positionals_argument("<channel>")] = None) -> int:
    """Enable a channel (in .mmr.yaml unless --global)."""
    return _toggle("enable", args, global_, project)


@app.command("disable", cls=ConfigCommand)
def disable(*, global_: GlobalFlag = False, project: ProjectFlag = False,
            args: Annotated[list[str] | None, positionals_argument("<channel>")] = None) -> int:
    """Disable a channel (a CLI missing on this machine is recorded in the user file)."""
    return _toggle("disable", args, global_, project)


@app.command("set", cls=ConfigCommand)
def set_(*, global_: GlobalFlag = False, project: ProjectFlag = False,
         args: Annotated[list[str] | None,
                         positionals_argument("<dotted.path> <value>")] = None) -> int:
    """Set one key, such as defaults.fix_threshold P1; an invalid result is rolled back."""
    from mmr.config_edit.scope import requested_scope
    from mmr.config_edit.set_unset import set_config_value

    key, value = positionals("set", args, 2)
    if key is None or value is None:
        missing("<dotted.path>" if key is None else "<value>")
    scope = requested_scope(global_, project)
    outcome = set_config_value(key, value, scope=scope,
                               project_root=find_project_root())
    flag = "--global" if outcome.file.scope == "user" else "--project"
    write_report(f"✓ set {key}\n  wrote {outcome.file.path}\n"
                 f"  revert mmr config unset {key} {flag}")
    return 0


@app.command("unset", cls=ConfigCommand)
def unset(*, global_: GlobalFlag = False, project: ProjectFlag = False,
          args: Annotated[list[str] | None, positionals_argument("<dotted.path>")] = None) -> int:
    """Remove one key from a config file; the value from a lower layer applies again."""
    from mmr.config_edit.scope import requested_scope
    from mmr.config_edit.set_unset import parse_path, unset_config_value
    from mmr.config_edit.views import compact_json, redacted_inherited

    (key,) = positionals("unset", args, 1)
    if key is None:
        missing("<dotted.path>")
    scope = requested_scope(global_, project)
    outcome = unset_config_value(key, scope=scope, project_root=find_project_root())
    if not outcome.removed:
        write_report(f"  {key} is not set in {outcome.file.path} — nothing to unset.")
        return 0
    lines = [f"✓ unset {key}  ({outcome.file.path})"]
    found, value = outcome.inherited
    if found:
        shown = redacted_inherited(parse_path(key), value)
        lines.append(f"  now inherits: {compact_json(shown)}")
    write_report("\n".join(lines))
    return 0


def _toggle(verb: Literal["enable", "disable"], args: list[str] | None,
            global_: bool, project: bool) -> int:
    from mmr.config_edit.scope import requested_scope
    from mmr.config_edit.toggle import toggle_channel, toggle_report

    (name,) = positionals(verb, args, 1)
    if name is None:
        missing("<channel>")
    scope = requested_scope(global_, project)
    outcome = toggle_channel(name, enable=verb == "enable", scope=scope,
                             project_root=find_project_root())
    write_report(toggle_report(outcome))
    return 0


def _show(name: str, redact: bool) -> int:
    from mmr.config_edit.scope import load
    from mmr.config_edit.views import SHOW_NO_REDACT_WARNING, show_channel

    loaded = load(find_project_root())
    text = show_channel(loaded, name, redact=redact)
    if text is None:
        known = ", ".join(loaded.channels)
        raise ConfigCommandError(f'Channel "{name}" not found. Known channels: {known}')
    if not redact:
        stderr_line(SHOW_NO_REDACT_WARNING)
    write_report(text)
    return 0
