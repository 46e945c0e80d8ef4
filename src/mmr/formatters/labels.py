"""Pieces the text and markdown reports share, so the two cannot drift apart."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mmr.models import ReconciledResults, Telemetry

#: Channel statuses that mean "this reviewer did not report" (spec ch. 04 §6.3 step 6).
DEGRADED_STATUSES = frozenset({"not_installed", "auth_failed", "failed", "timeout", "skipped"})

_LABELS = {"pass": "PASSED", "blocked": "BLOCKED", "needs-user-decision": "NEEDS DECISION"}


def verdict_label(results: ReconciledResults) -> str:
    """The headline label; a degraded pass still says ``PASSED`` so old greps keep matching."""
    if results.verdict == "degraded-pass":
        meta = results.metadata
        return f"PASSED (DEGRADED — {meta.channels_completed}/{meta.channels_dispatched} channels)"
    return _LABELS.get(results.verdict, "UNKNOWN")


def is_gate_document(results: ReconciledResults) -> bool:
    """The ratification-gate document is the only verdict document without a job."""
    return results.job_id is None


def proposal_parts(results: ReconciledResults, *, config_file: str) -> list[str]:
    """What a trust-mode run proposes, for the trust line: ``proposed <config_file> change``
    and ``proposed acks: N`` (each only when there is one)."""
    parts = []
    if results.proposed_config_change:
        parts.append(f"proposed {config_file} change")
    if results.proposed_acks:
        parts.append(f"proposed acks: {len(results.proposed_acks)}")
    return parts


def telemetry_parts(telemetry: Telemetry | None) -> list[str]:
    """``tokens in 1,234``, ``out 56``, ``context 200,000``, ``cost $0.0123``, ``turns 3``."""
    if telemetry is None:
        return []
    parts = []
    if telemetry.input_tokens is not None:
        parts.append(f"tokens in {_count(telemetry.input_tokens)}")
    if telemetry.output_tokens is not None:
        parts.append(f"out {_count(telemetry.output_tokens)}")
    if telemetry.context_window is not None:
        parts.append(f"context {_count(telemetry.context_window)}")
    if telemetry.cost_usd is not None:
        parts.append(f"cost ${telemetry.cost_usd:.4f}")
    if telemetry.turns is not None:
        parts.append(f"turns {_count(telemetry.turns)}")
    return parts


def _count(value: float) -> str:
    """Thousands separators; whole numbers without a decimal part."""
    return f"{int(value):,}" if float(value).is_integer() else f"{value:,}"
