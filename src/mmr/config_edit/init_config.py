"""``mmr config init [--global]``: seed a project ``.mmr.yaml`` (or the user file) from
what is installed here, then say the next step: commit it, or add a reviewer.

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
from mmr.config.paths import project_config_path, user_config_path
from mmr.config_edit.atomic_file import create_file
from mmr.config_edit.command_errors import ConfigCommandError
from mmr.config_edit.init_template import EXAMPLE_IDS, render_init_config
from mmr.config_edit.runtime_probe import detect_runtimes
from mmr.dispatch.auth import install_token, is_installed
from mmr.fs import ensure_private_dir

ALREADY_EXISTS = "{name} already exists. Remove it first to re-initialize."
#: A review reads the project file from the base branch, so an uncommitted one is not read.
COMMIT_IT = ("Next: commit it (git add .mmr.yaml && git commit -m 'mmr config'); a review "
             "reads it from the base branch. For this machine only: mmr config init --global")
RECIPES = "a channel of your own: docs/recipes/ (linter.md, ollama.md, vllm-llamacpp.md)"
NO_REVIEWER = ("No reviewer CLI is installed here: install one (`mmr doctor` says how) or "
               f"add {RECIPES}.")
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


def channel_seeds() -> list[ChannelSeed]:
    """One seed per :func:`seedable_presets` entry: is its CLI here, and seed it enabled?"""
    seeds = []
    for name, preset in seedable_presets():
        detected = is_installed(install_token(preset["command"]))
        ships_enabled = preset.get("enabled", True) is not False
        enabled = detected and (ships_enabled or name in SEEDED_WHEN_DETECTED)
        seeds.append(ChannelSeed(name, detected, enabled))
    return seeds


def init_project_config(project_root: Path, *, with_examples: bool,
                        say: Callable[[str], None], user_file: bool = False) -> Path:
    """Write ``<project root>/.mmr.yaml``, or the user file (``user_file``): mode 0600,
    never over an existing file."""
    path = (user_config_path() if user_file else project_config_path(project_root)).absolute()
    already = ALREADY_EXISTS.format(name=path.name)
    if os.path.lexists(path):
        raise ConfigCommandError(already)
    seeds = channel_seeds()
    for seed in seeds:
        say(f"  {seed.name}: {'detected' if seed.detected else 'not found'}")
    found = detect_runtimes()
    for runtime, detected in found.items():
        say(f"  {runtime}: {'detected' if detected else 'not found'}")
    examples = EXAMPLE_IDS if with_examples else [rt for rt, ok in found.items() if ok]
    text = render_init_config([(seed.name, seed.enabled) for seed in seeds], examples)
    try:
        ensure_private_dir(path.parent)
        create_file(path, text.encode("utf-8"))
    except FileExistsError:
        raise ConfigCommandError(already) from None
    except OSError as exc:
        raise ConfigCommandError(f"Failed to write {path}: {exc.strerror or exc}") from None
    say("")
    say(f"Created {path}")
    if not user_file:
        say(COMMIT_IT)
    say(f"More reviewers: {RECIPES}." if any(seed.enabled for seed in seeds) else NO_REVIEWER)
    return path
