"""Assemble the critique report and its one-line summary.

The summary counts ``consensus`` items only, or with lenses every item raised by more
than one channel (``agreed``): lensed channels may agree because their roles overlap, so
"independent consensus" would overstate it. ``majority`` items are in neither count
without lenses (MMR 4.0.1's wording, kept for scripts that grep it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mmr.critique.context import RepoContext
from mmr.critique.models import (
    NO_JOB,
    ChannelEntry,
    CritiqueReport,
    Metadata,
    ReconciledItem,
    SynthesisResult,
)
from mmr.formatters.json import dumps

NO_CHANNELS_SUMMARY = "No channels were available to run the critique — check `mmr doctor`."


def summary_line(items: Sequence[ReconciledItem], *, completed: int, dispatched: int,
                 lensed: bool) -> str:
    """``N item(s) across C of D channel(s) — X consensus, U single-model``."""
    if dispatched == 0 or completed == 0:
        return NO_CHANNELS_SUMMARY
    consensus = sum(1 for item in items if item.agreement == "consensus")
    majority = sum(1 for item in items if item.agreement == "majority")
    unique = sum(1 for item in items if item.agreement == "unique")
    shared = f"{consensus + majority} agreed" if lensed else f"{consensus} consensus"
    return (f"{len(items)} item(s) across {completed} of {dispatched} channel(s) — "
            f"{shared}, {unique} single-model")


def _context_fields(context: RepoContext | None) -> dict[str, Any]:
    """``context_used`` and ``context_skipped``, each only when it has entries."""
    if context is None:
        return {}
    fields: dict[str, Any] = {}
    if context.used:
        fields["context_used"] = list(context.used)
    if context.skipped:
        fields["context_skipped"] = [entry.to_json_dict() for entry in context.skipped]
    return fields


@dataclass(frozen=True)
class RoundInfo:
    """The session this critique belongs to, and its round number."""

    session_id: str
    round: int


def build_report(*, job_id: str, source: str, items: Sequence[ReconciledItem],
                 per_channel: Mapping[str, ChannelEntry], dispatched: int, completed: int,
                 elapsed_s: float, context: RepoContext | None, lenses: Sequence[str],
                 synthesis: SynthesisResult, session: RoundInfo | None) -> CritiqueReport:
    """The report of a critique whose job ran."""
    return CritiqueReport.model_validate({
        "job_id": job_id, "artifact_source": source, "items": list(items),
        "per_channel": dict(per_channel),
        "summary": summary_line(items, completed=completed, dispatched=dispatched,
                                lensed=bool(lenses)),
        "metadata": Metadata(channels_dispatched=dispatched, channels_completed=completed,
                             total_elapsed=f"{int(elapsed_s + 0.5)}s"),
        **_context_fields(context),
        "lenses": list(lenses) or None,
        "splits": list(synthesis.splits) or None,
        "synthesis": synthesis.synthesis,
        "session_id": None if session is None else session.session_id,
        "round": None if session is None else session.round,
    })


def empty_report(source: str, per_channel: Mapping[str, ChannelEntry],
                 context: RepoContext | None) -> CritiqueReport:
    """Nothing passed the pre-flight: no job, no items, zeros (lenses and session omitted)."""
    return CritiqueReport.model_validate({
        "job_id": NO_JOB, "artifact_source": source, "items": [],
        "per_channel": dict(per_channel), "summary": NO_CHANNELS_SUMMARY,
        "metadata": Metadata(channels_dispatched=0, channels_completed=0, total_elapsed="0s"),
        **_context_fields(context),
    })


def render_json(report: CritiqueReport) -> str:
    """2-space JSON, keys in the report's order, non-ASCII kept."""
    return dumps(report.to_json_dict())
