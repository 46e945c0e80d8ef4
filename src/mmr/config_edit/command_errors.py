"""The error a ``mmr config`` sub-command raises to refuse, in MMR 4.0.1's own words."""

from __future__ import annotations

from mmr.errors import MmrError


class ConfigCommandError(MmrError):
    """A refusal such as ``Unknown channel 'cdoex'. Known channels: …`` (exit 1).

    The CLI prints the message exactly as given, without a prefix: scripts and agents
    grep these strings. Nothing has been written when it is raised, or the
    write has been rolled back.
    """
