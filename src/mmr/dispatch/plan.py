"""The contract between the review pipeline and the dispatcher.

The pipeline decides *what* each channel gets (its prompt, timeout, parser) and hands
the dispatcher a list of :class:`ChannelPlan`; the dispatcher runs them, records every
state change in the job store, parses each reply as it settles ("parse at settle") and
returns one :class:`ChannelOutcome` per plan. Progress is reported through
:class:`ChannelEvent` callbacks so the CLI can draw it without the core knowing of a TTY.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from mmr.cache.store import ReviewCache
from mmr.config.channel_schema import HttpChannel, SubprocessChannel
from mmr.models import ChannelStatus, ParsedOutput, Telemetry
from mmr.parsers.specs import ParserSpec
from mmr.store.jobs import JobStore

AuthStatus = Literal["ok", "failed", "timeout", "not_installed", "skipped"]


@dataclass(frozen=True, slots=True)
class ShardPlan:
    """One shard of a channel's diff: its complete prompt and the files it holds."""

    prompt: str
    files: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ChannelPlan:
    """One channel to dispatch: everything decided before a process starts."""

    name: str  #: job channel name (``codex``, or ``compensating-codex`` for a pass)
    channel: SubprocessChannel | HttpChannel  #: the merged channel config
    prompt: str  #: the complete prompt after redaction and the channel's wrapper
    timeout_s: float  #: already resolved (an explicit ``--timeout`` wins — Decisions)
    output_parser: ParserSpec  #: after the findings-schema coercion; what the job records
    compensator: str | None = None  #: for a compensating pass: the channel that runs it
    #: An HTTP channel's model entry as its server listed it at the auth probe (canonical
    #: JSON): part of the review cache key, so a reply is reused only while the server
    #: still serves what it served.
    served_model: str | None = None
    #: The diff cut to fit the channel's prompt budget, each dispatched as ``<name>.shard-N``;
    #: empty when one prompt (``prompt``) fits.
    shards: tuple[ShardPlan, ...] = ()
    max_prompt_tokens: int | None = None  #: the budget the shards were cut for


@dataclass(frozen=True, slots=True)
class ChannelEvent:
    """A state change of one channel, for progress display and logs."""

    channel: str
    status: ChannelStatus
    elapsed_s: float = 0.0
    attempt: int = 1
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class ChannelOutcome:
    """How one channel settled. ``parsed`` is set exactly when ``status == "completed"``."""

    name: str
    status: ChannelStatus
    elapsed_s: float
    attempts: int = 1
    reason: str | None = None  #: the job store's skip reasons (``parse_error``, ``timeout``, …)
    error: str | None = None
    parsed: ParsedOutput | None = None
    telemetry: Telemetry | None = None
    cached: bool = False  #: the reply came from the review cache; no process ran


@dataclass(frozen=True, slots=True)
class AuthResult:
    """The install + auth pre-flight of one channel."""

    status: AuthStatus
    recovery: str | None = None  #: already redacted
    detail: str | None = None
    #: The job status when it is not the usual one for ``status`` (an unreachable HTTP
    #: endpoint is ``failed``, not ``auth_failed``).
    channel_status: ChannelStatus | None = None
    #: An HTTP channel's model entry from its server's ``/models`` listing (canonical JSON).
    served_model: str | None = None


EventSink = Callable[[ChannelEvent], None]


@dataclass(frozen=True, slots=True)
class DispatchContext:
    """Where and how a set of plans runs."""

    job_id: str
    store: JobStore
    repo_root: Path
    parallel: bool = True
    on_event: EventSink | None = None
    #: ``{{roots}}`` in flags (``mmr explore``); None drops the flag pair that uses it.
    roots: tuple[str, ...] | None = None
    #: Replies reused across reviews (``defaults.cache``); None: every channel runs.
    cache: ReviewCache | None = None
    #: The review workspace channels with ``workspace: snapshot`` run in; None: there is none.
    workspace: Path | None = None
