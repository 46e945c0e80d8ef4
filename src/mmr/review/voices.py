"""Which reviewer really speaks through a channel: its voice.

Two channels that send the same model to the same endpoint, or run the same CLI with the
same arguments, give copies of one opinion; counted as two reviewers they turned a small
model served twice into ``consensus`` with ``high`` confidence. A channel's voice is:

- HTTP: ``http <model> <endpoint>``, the endpoint with its trailing ``/`` dropped and its
  scheme and host in lower case (the path is kept as written);
- subprocess: ``cli <command> <flags>``, the program, its leading arguments and its flags
  as configured (before placeholders are filled), one space apart;
- replay: ``replay file <path>`` or ``replay job <id> <channel>``, the recording it serves
  (each recording is the reply of the reviewer that wrote it).

A channel's prompt wrapper, focus and environment are not part of it: the same model asked
in other words is still one reviewer. Reconciliation and the completed-reviewers floor
count voices, not channels. The job stores a SHA-256 digest of that text, never the text:
a command line or an endpoint may carry a credential.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from urllib.parse import urlsplit, urlunsplit

from mmr.config.channel_schema import HttpChannel, ReplayChannel
from mmr.config.loaded import Channel
from mmr.prompt.plans import PlannedChannel


def voice_text(channel: Channel, name: str = "") -> str:
    """What identifies the reviewer behind one configured channel (the module docstring)."""
    if isinstance(channel, HttpChannel):
        parts = urlsplit(channel.endpoint.strip())
        endpoint = urlunsplit((parts.scheme.lower(), parts.netloc.lower(),
                               parts.path.rstrip("/"), parts.query, ""))
        return f"http {channel.model} {endpoint}"
    if isinstance(channel, ReplayChannel):
        source = channel.replay
        if source.file is not None:
            return f"replay file {source.file}"
        return f"replay job {source.job} {source.channel or name}"
    return " ".join(["cli", *(channel.command or "").split(), *channel.flags])


def voice(channel: Channel, name: str = "") -> str:
    """The voice the job records: ``voice-`` and the digest of :func:`voice_text`."""
    return "voice-" + hashlib.sha256(voice_text(channel, name).encode()).hexdigest()[:32]


def channel_voices(planned: Iterable[PlannedChannel]) -> dict[str, str]:
    return {p.name: voice(p.channel, p.name) for p in planned}


def reviewer_identities(channels: dict[str, str | None],
                        voices: dict[str, str] | None) -> dict[str, str]:
    """``{channel: reviewer}`` for reconciliation and the floor.

    ``channels`` maps each channel to its compensator, if a compensating pass ran it
    (the pass speaks with the compensator's voice). A channel without a recorded voice
    (a job MMR 4.0.1 or an older mmr wrote) is its own reviewer, as in MMR 4.0.1.
    """
    known = voices or {}
    identities = {}
    for name, compensator in channels.items():
        reviewer = compensator or name
        identity = known.get(reviewer, reviewer)
        if identity != name:
            identities[name] = identity
    return identities
