"""Which file an enable/disable writes (shared with ``doctor --fix``).

``--global`` writes the user file and ``--project`` the project file. Without a flag an
enable always goes to the project file. A disable goes to the *user* file only when the
channel is a machine-level fact: its CLI is not installed here, the channel exists
without the project layer, and its ``command`` came from the built-ins or the user file.
Everything else — a project-only channel, a project channel extending a user template, a
built-in whose missing command is a project override — stays in the project file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from mmr.config.loaded import LoadedConfig, WorkingTree
from mmr.config.loader import load_config
from mmr.config.paths import project_config_path, user_config_path
from mmr.config.schema import HttpChannel
from mmr.config_edit.command_errors import ConfigCommandError
from mmr.config_edit.writer import ConfigFile, Scope
from mmr.dispatch.auth import install_token, is_installed
from mmr.trust.branch import probe_project_source

BOTH_SCOPES = "Pass only one of --global or --project, not both."


class ScopeConflict(ConfigCommandError):
    """``--global`` and ``--project`` were both given."""

    def __init__(self) -> None:
        super().__init__(BOTH_SCOPES)


@dataclass(frozen=True)
class WriteTarget:
    """The file an edit goes to, and whether a disable was routed there as "not installed"."""

    file: ConfigFile
    not_installed: bool = False

    @property
    def scope(self) -> Scope:
        return self.file.scope

    @property
    def flag(self) -> str:
        """The command-line flag that names this scope (for revert hints)."""
        return "--global" if self.scope == "user" else "--project"

    @property
    def other_flag(self) -> str:
        return "--project" if self.scope == "user" else "--global"


def load(project_root: Path, *, with_project: bool = True,
         on_warning: Callable[[str], None] | None = None) -> LoadedConfig:
    """The working-tree config; ``with_project=False``: the built-in and user layers only."""
    return load_config(project_root, project_source=WorkingTree() if with_project else None,
                       on_warning=on_warning)


def load_for_probes(project_root: Path, *, trust_project_config: bool,
                    on_warning: Callable[[str], None]) -> tuple[LoadedConfig, bool]:
    """The config ``doctor``/``config test`` run check commands from, and whether it is the
    working tree's (not when the checked-out branch changed ``.mmr.yaml``: docs/trust.md)."""
    source, warning = probe_project_source(project_root, trust_project_config=trust_project_config)
    if warning is not None:
        on_warning(warning)
    loaded = load_config(project_root, project_source=source, on_warning=on_warning)
    return loaded, isinstance(source, WorkingTree)


def requested_scope(global_flag: bool, project_flag: bool) -> Scope | None:
    """The scope the flags ask for (None: no flag); raises :class:`ScopeConflict` for both."""
    if global_flag and project_flag:
        raise ScopeConflict
    if global_flag:
        return "user"
    return "project" if project_flag else None


def config_file(scope: Scope, project_root: Path) -> ConfigFile:
    path = user_config_path() if scope == "user" else project_config_path(project_root)
    return ConfigFile(path, scope)


def toggle_target(
    name: str,
    *,
    enable: bool,
    scope: Scope | None,
    project_root: Path,
    merged: LoadedConfig,
    load_without_project: Callable[[], LoadedConfig],
) -> WriteTarget:
    """Where ``config enable|disable <name>`` (canonical name) writes.

    ``load_without_project`` loads built-in + user only; it is called only when the
    routing rule needs it.
    """
    if scope is not None:
        return WriteTarget(config_file(scope, project_root))
    if not enable and _machine_level_absence(name, merged, load_without_project):
        return WriteTarget(config_file("user", project_root), not_installed=True)
    return WriteTarget(config_file("project", project_root))


def _machine_level_absence(name: str, merged: LoadedConfig,
                           load_without_project: Callable[[], LoadedConfig]) -> bool:
    channel = merged.channels.get(name)
    if channel is None or isinstance(channel, HttpChannel):
        return False
    token = install_token(channel.command)
    if not token or is_installed(token):
        return False
    if merged.provenance.source_of(("channels", name, "command")) not in ("default", "user"):
        return False
    return name in load_without_project().channels
