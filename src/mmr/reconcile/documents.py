"""The two verdict documents ``mmr review`` prints without running a review.

Both are :class:`~mmr.models.ReconciledResults`, so every verdict document has one shape
and every format renders them.
"""

from __future__ import annotations

from mmr.models import ReconciledResults, ResultsMetadata, TrustMode
from mmr.store.rounds import max_rounds_summary
from mmr.vocabulary import Severity


def _empty_metadata() -> ResultsMetadata:
    return ResultsMetadata(channels_dispatched=0, channels_completed=0, channels_partial=0,
                           total_elapsed="0s")


def max_rounds_results(session_id: str | None, round_number: int, max_rounds: int,
                       fix_threshold: Severity) -> ReconciledResults:
    """The round-budget document (exit 3): no job is created and no session is touched."""
    return ReconciledResults(job_id=f"session-{session_id or 'default'}",
                             verdict="needs-user-decision", fix_threshold=fix_threshold,
                             advisory_count=0, approved=False,
                             summary=max_rounds_summary(session_id, round_number, max_rounds),
                             reconciled_findings=[], per_channel={}, metadata=_empty_metadata())


def ratification_results(summary: str, fix_threshold: Severity, trust_mode: TrustMode,
                         proposed_acks: list[str] | None = None,
                         proposed_config_change: bool = False) -> ReconciledResults:
    """The ratification-gate document (exit 2); ``summary`` comes from the gate.

    MMR 4.0.1 prints no ``job_id``, ``per_channel`` or ``metadata`` here; mmr adds
    ``job_id: null``, ``per_channel: {}`` and zeroed ``metadata`` (additive).
    """
    return ReconciledResults(job_id=None, verdict="needs-user-decision",
                             fix_threshold=fix_threshold, advisory_count=0, approved=False,
                             summary=summary, reconciled_findings=[], per_channel={},
                             metadata=_empty_metadata(), trust_mode=trust_mode,
                             proposed_acks=proposed_acks or None,
                             proposed_config_change=True if proposed_config_change else None)
