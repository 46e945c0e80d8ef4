"""``mmr doctor --fix``: disable the channels whose CLI is not installed.

Each channel is written to the file ``mmr config disable`` would pick
(:func:`mmr.config_edit.scope.toggle_target`): the user file when the channel and its
``command`` come from the built-ins or the user file — a fact about this machine — else
the project ``.mmr.yaml``. The edit keeps comments and is atomic; the project file is never
written through a symlink. Every write is verified by reloading the whole config: a higher
layer that still enables the channel makes the fix a failure, as does any error.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, partial
from pathlib import Path

from mmr.config.loaded import LoadedConfig
from mmr.config.selection import disabled_channels
from mmr.config_edit.scope import load, toggle_target
from mmr.config_edit.writer import set_channel_enabled
from mmr.errors import MmrError


@dataclass(frozen=True)
class FixOutcome:
    """What ``--fix`` did to one channel. ``ok`` means written *and* verified disabled."""

    name: str
    file: Path | None
    ok: bool
    error: str | None = None  #: why nothing was written (None when the write happened)

    @property
    def line(self) -> str:
        """The line the CLI prints: to stdout when ``ok`` (text mode), else to stderr."""
        if self.ok:
            return f"  ✓ disabled {self.name} in {self.file}"
        if self.error is not None:
            return f"  ✗ could not disable {self.name}: {self.error}"
        return (f"  ✗ wrote {self.name} disabled to {self.file}, but a higher-precedence layer "
                "still enables it — disable it there (e.g. --project / --global).")


def is_disabled(loaded: LoadedConfig, name: str) -> bool:
    """``enabled: false`` or listed in ``channels_disabled`` (a removed channel counts too)."""
    channel = loaded.channels.get(name)
    return channel is None or not channel.enabled or name in disabled_channels(loaded.config)


def fix_not_installed(names: Sequence[str], project_root: Path) -> list[FixOutcome]:
    """Disable each channel in ``names`` (canonical, not installed), in order."""
    merged = load(project_root)
    without_project = cache(partial(load, project_root, with_project=False))
    outcomes = []
    for name in names:
        file: Path | None = None
        try:
            target = toggle_target(name, enable=False, scope=None, project_root=project_root,
                                   merged=merged, load_without_project=without_project)
            file = target.file.path
            set_channel_enabled(target.file, name, False)
            outcomes.append(FixOutcome(name, file, ok=is_disabled(load(project_root), name)))
        except (MmrError, OSError) as exc:
            outcomes.append(FixOutcome(name, file, ok=False, error=_message(exc)))
    return outcomes


def _message(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return f"{exc.strerror}: {exc.filename}" if exc.filename else exc.strerror
    return str(exc) or type(exc).__name__
