"""Channels ``mmr config test`` checks that ``mmr review`` will not see.

``config test`` reads the working-tree ``.mmr.yaml`` (the user's own edits); ``mmr review``
reads the project file from a commit (``HEAD``, or the merge base), and none at all outside
a git repository (docs/trust.md). A channel only the uncommitted file defines therefore
tests fine and then is ``Channel "x" not found in config`` in the review. This finds those
channels so the report can say so, with the fix.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mmr import git
from mmr.config.aliases import normalize_channel_name
from mmr.config.loaded import LoadedConfig
from mmr.config.paths import PROJECT_CONFIG_NAME
from mmr.config.yaml_io import parse_config_mapping
from mmr.errors import MmrError

NOTE = "mmr review will not use it: it is defined only in the uncommitted .mmr.yaml"
NOTE_NON_GIT = "mmr review will not use it: no project .mmr.yaml is read outside a git repository"


@dataclass(frozen=True)
class Unseen:
    """Channels of the working-tree file that review will not load, and why."""

    names: tuple[str, ...]
    file: Path
    in_git: bool

    @property
    def note(self) -> str:
        return NOTE if self.in_git else NOTE_NON_GIT

    def warning(self) -> str:
        """The stderr line: the file, the reason and the fix."""
        listed = ", ".join(self.names)
        if not self.in_git:
            return (f"mmr: warning: {listed} {_are(self.names)} defined only in {self.file}, "
                    "and mmr review reads no project .mmr.yaml outside a git repository, so "
                    f"it will not use {_them(self.names)}. Run mmr review in a git "
                    "repository, or pass --trust-project-config to it.")
        return (f"mmr: warning: {listed} {_are(self.names)} defined only in the uncommitted "
                f"{self.file}; mmr review reads .mmr.yaml from a commit, so it will not use "
                f"{_them(self.names)}. Commit .mmr.yaml (and merge it to the default branch), "
                "or pass --trust-project-config to mmr review.")


def unseen_by_review(project_root: Path, loaded: LoadedConfig) -> Unseen | None:
    """The channels only the working-tree project file defines that review cannot see."""
    project = loaded.layer("project")
    if project is None or project.path is None:  # not the working tree's file
        return None
    elsewhere = {name for layer in loaded.layers if layer.source in ("default", "user")
                 for name in _channel_names(layer.data)}
    names = [name for name in _channel_names(project.data) if name not in elsewhere]
    if not names:
        return None
    if not git.is_inside_work_tree(project_root):
        return Unseen(tuple(names), project.path, in_git=False)
    text = committed_project_config(project_root)
    try:
        committed = (set() if text is None else
                     set(_channel_names(parse_config_mapping(text, PROJECT_CONFIG_NAME))))
    except MmrError:  # the committed file does not parse
        committed = set()
    unseen = tuple(name for name in names if name not in committed)
    return Unseen(unseen, project.path, in_git=True) if unseen else None


def project_file_note(project_path: Path, project_root: Path) -> str | None:
    """``config path``'s note when review will not read the working-tree ``.mmr.yaml`` as is.

    Review reads the project file from a commit, never from the working tree, and none at
    all for ``--diff`` or in CI unless trusted (docs/trust.md); a file that exists but is
    not what ``HEAD`` holds would otherwise look as if it applied.
    """
    if not project_path.is_file():
        return None
    if not git.is_inside_work_tree(project_root):
        return (f"note: {project_path} is not read by mmr review outside a git repository "
                "(pass --trust-project-config to read it)")
    committed = committed_project_config(project_root)
    try:
        current = project_path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        current = None
    if committed is None:
        state = "is not committed"
    elif committed != current:
        state = "differs from HEAD"
    else:
        return ("note: mmr review reads .mmr.yaml as committed; --diff and CI runs skip it "
                "unless --trust-project-config is passed (docs/trust.md)")
    return (f"note: {project_path} {state}; mmr review reads .mmr.yaml from a commit, so "
            "commit it (and merge it to the default branch) or pass --trust-project-config "
            "(docs/trust.md)")


def committed_project_config(project_root: Path) -> str | None:
    """``.mmr.yaml`` as ``HEAD`` holds it; None with no commit yet or no such file there."""
    try:
        return git.show_file("HEAD", PROJECT_CONFIG_NAME, project_root)
    except MmrError:
        return None


def _channel_names(data: dict[str, object]) -> list[str]:
    """A layer's channel names, canonical, in file order."""
    channels = data.get("channels")
    if not isinstance(channels, dict):
        return []
    return list(dict.fromkeys(normalize_channel_name(str(name)) for name in channels))


def _are(names: tuple[str, ...]) -> str:
    return "is" if len(names) == 1 else "are"


def _them(names: tuple[str, ...]) -> str:
    return "it" if len(names) == 1 else "them"
