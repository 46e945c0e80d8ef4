"""What a config load returns, and where the project layer comes from."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mmr.config.aliases import normalize_channel_name
from mmr.config.provenance import Provenance, Source
from mmr.config.schema import Defaults, HttpChannel, MmrConfig, SubprocessChannel
from mmr.log import stderr_line

Channel = SubprocessChannel | HttpChannel


@dataclass(frozen=True)
class WorkingTree:
    """Read the project layer from ``<project root>/.mmr.yaml`` on disk."""


@dataclass(frozen=True)
class ProjectText:
    """The project layer's text, read by the caller, and where from (a path, or
    ``<ref>:.mmr.yaml``), which names it in errors."""

    text: str
    origin: str


ProjectSource = WorkingTree | ProjectText


@dataclass(frozen=True)
class ConfigLayer:
    """One parsed, alias-normalised layer: ``label`` names it in messages."""

    source: Source
    label: str
    path: Path | None
    data: dict[str, Any]


@dataclass(frozen=True)
class LoadedConfig:
    """The validated config, where each value came from, and the layers it was built from."""

    config: MmrConfig
    provenance: Provenance
    layers: tuple[ConfigLayer, ...]
    warnings: tuple[str, ...] = ()
    #: ``--timeout`` of this run; it wins over every channel's own timeout.
    cli_timeout: float | None = None

    @property
    def defaults(self) -> Defaults:
        return self.config.defaults

    @property
    def channels(self) -> dict[str, Channel]:
        """Every channel, in registry order."""
        return self.config.channels

    def chosen_format(self) -> str | None:
        """``defaults.format`` when a config file or ``--format`` set it, else None (the
        built-in default: text on a terminal, json otherwise, decided where it prints)."""
        if self.provenance.source_of(("defaults", "format")) == "default":
            return None
        return self.config.defaults.format

    def channel(self, name: str) -> Channel | None:
        """The channel called ``name`` (an alias is accepted), or None."""
        return self.config.channels.get(normalize_channel_name(name))

    def timeout_for(self, name: str) -> float:
        """Seconds channel ``name`` may run: ``--timeout``, else its own, else the default."""
        if self.cli_timeout is not None:
            return self.cli_timeout
        channel = self.channel(name)
        if channel is not None and channel.timeout is not None:
            return channel.timeout
        return self.config.defaults.timeout

    def layer(self, source: Source) -> ConfigLayer | None:
        return next((layer for layer in self.layers if layer.source == source), None)

    @property
    def channels_disabled_source(self) -> Source | None:
        """The layer whose top-level ``channels_disabled`` list is in effect."""
        for layer in reversed(self.layers):
            if "channels_disabled" in layer.data:
                return layer.source
        return None


_printed: set[str] = set()


def print_warning(message: str) -> None:
    """The default warning sink: stderr, each distinct line once per process."""
    if message in _printed:
        return
    _printed.add(message)
    stderr_line(message)


@dataclass
class WarningSink:
    """Collects one load's warnings (each once) and forwards them to the caller's sink."""

    forward: Callable[[str], None] | None = None
    messages: list[str] = field(default_factory=list)

    def __call__(self, message: str) -> None:
        if message in self.messages:
            return
        self.messages.append(message)
        (self.forward or print_warning)(message)
