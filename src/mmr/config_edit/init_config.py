"""``mmr config init``: seed a project ``.mmr.yaml`` from what is installed here.

The config is never loaded: only the built-in presets and ``PATH`` are consulted, so
``init`` works while another config file is broken. A detected CLI is seeded enabled
unless its preset ships disabled; ``minimax`` is the exception — it ships disabled so a
config written for MMR 4.0.1 dispatches the same channels, and ``init`` turns it on when
``ask-minimax-run`` is here. Explore-role and retired presets are not seeded.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mmr.config.defaults import BUILTIN_CHANNEL_ORDER, builtin_layer
from mmr.config.merge import resolve_extends
from mmr.config.paths import project_config_path
from mmr.config_edit.atomic_file import create_file
from mmr.config_edit.command_errors import ConfigCommandError
from mmr.config_edit.init_template import EXAMPLE_IDS, render_init_config
from mmr.config_edit.runtime_probe import detect_runtimes
from mmr.dispatch.auth import install_token, is_installed

ALREADY_EXISTS = ".mmr.yaml already exists. Remove it first to re-initialize."
#: Presets that ship disabled yet are seeded enabled when their CLI is detected.
SEEDED_WHEN_DETECTED = frozenset({"minimax"})


@dataclass(frozen=True)
class ChannelSeed:
    name: str
    detected: bool
    enabled: bool


def seedable_presets() -> list[tuple[str, dict[str, Any]]]:
    """Built-in presets ``init`` seeds, extends resolved, in registry order: those with a
    command, neither retired nor explore-role."""
    resolved, _ = resolve_extends(builtin_layer()["channels"], {})
    return [(name, resolved[name]) for name in BUILTIN_CHANNEL_ORDER
            if resolved[name].get("command") and not resolved[name].get("retired")
            and resolved[name].get("role") != "explore"]


def _ships_enabled(preset: dict[str, Any]) -> bool:
    return preset.get("enabled", True) is not False


def channel_seeds() -> list[ChannelSeed]:
    """One seed per :func:`seedable_presets` entry: is its CLI here, and seed it enabled?"""
    seeds = []
    for name, preset in seedable_presets():
        detected = is_installed(install_token(preset["command"]))
        enabled = detected and (_ships_enabled(preset) or name in SEEDED_WHEN_DETECTED)
        seeds.append(ChannelSeed(name, detected, enabled))
    return seeds


def init_project_config(project_root: Path, *, with_examples: bool,
                        say: Callable[[str], None]) -> Path:
    """Write ``<project root>/.mmr.yaml`` (mode 0600, never over an existing file)."""
    path = project_config_path(project_root).absolute()
    if os.path.lexists(path):
        raise ConfigCommandError(ALREADY_EXISTS)
    seeds = channel_seeds()
    for seed in seeds:
        say(f"  {seed.name}: {'detected' if seed.detected else 'not found'}")
    found = detect_runtimes()
    for runtime, detected in found.items():
        say(f"  {runtime}: {'detected' if detected else 'not found'}")
    examples = EXAMPLE_IDS if with_examples else [rt for rt, ok in found.items() if ok]
    text = render_init_config([(seed.name, seed.enabled) for seed in seeds], examples)
    try:
        create_file(path, text.encode("utf-8"))
    except FileExistsError:
        raise ConfigCommandError(ALREADY_EXISTS) from None
    except OSError as exc:
        raise ConfigCommandError(f"Failed to write {path}: {exc.strerror or exc}") from None
    say("")
    say(f"Created {path}")
    return path
