"""Parse at settle, and telemetry.

As soon as a channel's reply settles ``completed`` mmr runs its ``output_parser`` on it:
a reply that does not parse is ``failed`` with reason ``parse_error`` (``gate_failed`` for
a citation gate), so it is retried where the channel's policy says so and then
compensated, instead of passing as an empty review. ``<ch>.json`` is kept either way.
Telemetry comes from the raw reply whatever the parse gives.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from mmr.config.channel_schema import Telemetry as TelemetryPaths
from mmr.dispatch.attempt import AttemptResult
from mmr.log import get_logger
from mmr.models import ChannelStatus, ParsedOutput, ParseFailure, Telemetry
from mmr.parsers import extract_telemetry, parse_channel_output
from mmr.parsers.specs import ParserSpec


@dataclass(frozen=True, slots=True)
class RoundResult:
    """A round's outcome after the incomplete guard and the parse at settle."""

    status: ChannelStatus
    started_at: str | None
    runs: int
    reason: str | None = None
    log: str | None = None
    raw: str | None = None
    parsed: ParsedOutput | None = None
    telemetry: Telemetry | None = None


def parse_at_settle(attempt: AttemptResult, spec: ParserSpec, *, runs: int,
                    repo_root: Path | None) -> RoundResult:
    """``completed`` stays completed when ``raw`` parses, else becomes a failed round."""
    base = RoundResult(attempt.status, attempt.started_at, runs, log=attempt.log,
                       raw=attempt.raw, telemetry=attempt.telemetry)
    if attempt.status != "completed" or attempt.raw is None:
        return base
    result = parse_channel_output(attempt.raw, spec, repo_root=repo_root)
    if isinstance(result, ParseFailure):
        return replace(base, status="failed", reason=result.reason, log=result.description)
    return replace(base, parsed=result)


def extract(channel: str, raw: str | None, config: TelemetryPaths | None) -> Telemetry | None:
    """The figures of a settled reply, logged as one ``channel.telemetry`` event; None if none."""
    # The configured JSONPaths by figure name, unset figures left out.
    paths = {} if config is None else {
        key: path for key, path in config.model_dump().items() if isinstance(path, str)}
    if raw is None or not paths:
        return None
    figures = extract_telemetry(raw, paths)
    if not figures:
        return None
    get_logger(__name__).info("channel.telemetry", channel=channel, **figures)
    return Telemetry.model_validate(figures)
