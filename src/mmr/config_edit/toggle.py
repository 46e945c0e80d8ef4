"""``mmr config enable|disable <channel>``: write ``channels.<ch>.enabled``.

Enable/disable do not validate-and-roll-back like ``set``: refusing a write that would
leave an unrunnable stub replaces that step.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, partial
from pathlib import Path

from mmr.config.aliases import RETIRED_REPLACEMENT, alias_of, normalize_channel_name
from mmr.config.provenance import Source
from mmr.config.selection import is_effective, is_runnable
from mmr.config_edit.command_errors import ConfigCommandError
from mmr.config_edit.scope import WriteTarget, load, toggle_target
from mmr.config_edit.views import channel_source
from mmr.config_edit.writer import ConfigWriteError, Scope, set_channel_enabled


@dataclass(frozen=True)
class ToggleOutcome:
    """One enable/disable: the write and the reloaded effective state."""

    channel: str
    enable: bool
    target: WriteTarget
    effective: bool
    source: Source
    retired: bool


def toggle_channel(typed: str, *, enable: bool, scope: Scope | None,
                   project_root: Path) -> ToggleOutcome:
    """Enable or disable channel ``typed`` (an alias is accepted) in the chosen file."""
    verb = "enable" if enable else "disable"
    name = normalize_channel_name(typed)
    merged = load(project_root)
    channel = merged.channels.get(name)
    if enable and channel is not None and channel.retired:
        raise ConfigCommandError(retired_message(name))
    if channel is None:
        known = ", ".join(merged.channels)
        raise ConfigCommandError(f"Unknown channel '{typed}'. Known channels: {known}")
    without_project = cache(partial(load, project_root, with_project=False))

    target = toggle_target(name, enable=enable, scope=scope, project_root=project_root,
                           merged=merged, load_without_project=without_project)
    if target.scope == "user":
        global_channel = without_project().channels.get(name)
        if global_channel is None or not is_runnable(global_channel):
            raise ConfigCommandError(
                f"Cannot {verb} '{name}' with --global: it has no command in the global config "
                "(the change would be an unrunnable/un-revertable stub). Use --project."
            )
    elif enable and not is_runnable(channel):
        raise ConfigCommandError(
            f"Cannot enable '{name}': it has no command in the merged config (it is a disabled "
            "stub). Add a command to its channel config first."
        )
    try:
        set_channel_enabled(target.file, name, enable)
    except ConfigWriteError as exc:
        raise ConfigCommandError(f"Failed to write {target.file.path}: {exc}") from None
    reloaded = load(project_root)
    return ToggleOutcome(channel=name, enable=enable, target=target,
                         effective=is_effective(reloaded.config, name),
                         source=channel_source(reloaded, name), retired=bool(channel.retired))


def retired_message(name: str) -> str:
    """Why a retired channel cannot be enabled, with its replacement when it has one."""
    replacement = RETIRED_REPLACEMENT.get(name)
    if replacement is None:
        return f"Channel '{name}' is retired and cannot be enabled."
    alias = alias_of(replacement)
    hint = f'"{replacement}"' + (f" ({alias})" if alias else "")
    return f"Channel '{name}' is retired and cannot be enabled — use {hint}."


def toggle_report(outcome: ToggleOutcome) -> str:
    name, target = outcome.channel, outcome.target
    done = "Enabled" if outcome.enable else "Disabled"
    lines = [f"✓ {done} channel '{name}'"]
    if target.not_installed:
        lines += [
            f"  {name} CLI not installed — recorded as a machine-level preference in "
            f"{target.file.path}",
            "  pass --project to scope it to this repo instead",
        ]
    else:
        lines.append(f"  wrote {target.file.path}")
    state = "enabled" if outcome.effective else "disabled"
    lines.append(f"  now    {name}  {state}  ({outcome.source})")
    if outcome.effective != outcome.enable:
        still = "enables" if outcome.effective else "disables"
        lines += [
            f"  ⚠ another config layer still {still} this channel",
            "    run `mmr config channels --format text` to see which source wins,",
            f"    or re-run with {target.other_flag} to change the other layer",
        ]
    if not outcome.retired:  # re-enabling a retired channel can only fail
        undo = "disable" if outcome.enable else "enable"
        lines.append(f"  revert mmr config {undo} {name} {target.flag}")
    return "\n".join(lines)
