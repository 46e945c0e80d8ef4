"""What ``mmr explore`` reports: the answer chosen, its status, and each channel."""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from mmr.dispatch.plan import AuthResult, ChannelOutcome, ChannelPlan
from mmr.explore.scratch import ScratchRun, preview_argv, reply_text, telemetry_line
from mmr.models import ChannelStatus, ParseFailure
from mmr.parsers import parse_answer
from mmr.parsers.answer import NOT_FOUND
from mmr.parsers.specs import ParserSpec

ExploreStatus = Literal["answered", "not_found", "uncited", "failed"]
EXIT_CODES: dict[ExploreStatus, int] = {"answered": 0, "not_found": 0, "uncited": 3, "failed": 2}
PREFIX = "[mmr]"


@dataclass(frozen=True)
class ChannelSummary:
    """One selected channel in the report (``channels.<name>`` in JSON)."""

    status: ChannelStatus
    reason: str | None = None
    attempts: int | None = None
    outcome: ChannelOutcome | None = None
    detail: str | None = None  #: why it failed or was not run, for stderr

    def to_json(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"status": self.status}
        if self.reason is not None:
            entry["reason"] = self.reason
        if self.attempts is not None:
            entry["attempts"] = self.attempts
        telemetry = None if self.outcome is None else self.outcome.telemetry
        if telemetry is not None:
            entry["telemetry"] = telemetry.model_dump(exclude_none=True)
        return entry


@dataclass(frozen=True)
class ExploreReport:
    """The run's result: which answer stands, with what status, and every channel."""

    status: ExploreStatus
    answer: str | None
    channel: str | None
    roots: tuple[Path, ...]
    channels: dict[str, ChannelSummary] = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.status]


def _summary(outcome: ChannelOutcome) -> ChannelSummary:
    attempts = outcome.attempts if outcome.attempts >= 2 else None
    return ChannelSummary(outcome.status, outcome.reason, attempts, outcome, outcome.error)


def summarise(names: Sequence[str], plans: Sequence[ChannelPlan], run: ScratchRun,
              not_run: Mapping[str, tuple[ChannelStatus, AuthResult]],
              roots: Sequence[Path]) -> ExploreReport:
    """The first passing answer in selection order; else uncited (exit 3) or failed (exit 2)."""
    specs = {plan.name: plan.output_parser for plan in plans}
    channels: dict[str, ChannelSummary] = {}
    answered: tuple[str, str] | None = None
    uncited: tuple[str, str | None] | None = None
    for name in names:
        if name in not_run:
            not_run_status, auth = not_run[name]
            channels[name] = ChannelSummary(not_run_status, detail=auth.recovery or auth.detail)
            continue
        outcome = run.outcomes[name]
        summary = _summary(outcome)
        raw = run.raw.get(name)
        if outcome.status == "completed" and raw is not None:
            text = parse_answer(raw, specs[name])
            if isinstance(text, ParseFailure):  # not an answer parser: a failed channel
                summary = ChannelSummary("failed", text.reason, summary.attempts, outcome,
                                         text.error)
            elif answered is None:
                answered = (name, text)
        elif uncited is None and _ran_without_a_usable_answer(outcome.reason, raw, specs[name]):
            uncited = (name, reply_text(raw, specs[name]))
        channels[name] = summary
    if answered is not None:
        name, text = answered
        found: ExploreStatus = "not_found" if NOT_FOUND in text else "answered"
        return ExploreReport(found, text, name, tuple(roots), channels)
    if uncited is not None:
        return ExploreReport("uncited", uncited[1], uncited[0], tuple(roots), channels)
    return ExploreReport("failed", None, None, tuple(roots), channels)


def _ran_without_a_usable_answer(reason: str | None, raw: str | None, spec: ParserSpec) -> bool:
    """Uncited (``gate_failed``), or empty after its retry (a ``parse_error`` with no text).

    Both mean MiniMax ran but gave nothing to act on: exit 3, not the failure exit 2.
    """
    if reason == "gate_failed":
        return True
    if reason != "parse_error":
        return False
    text = reply_text(raw, spec)  # None when the envelope itself failed (e.g. is_error)
    return text is not None and not text.strip()


def render_json(report: ExploreReport) -> str:
    """The ``--format json`` document (2-space indent)."""
    document = {
        "answer": report.answer,
        "channel": report.channel,
        "status": report.status,
        "roots": [str(root) for root in report.roots],
        "channels": {name: entry.to_json() for name, entry in report.channels.items()},
    }
    return json.dumps(document, indent=2, ensure_ascii=False)


def stderr_lines(report: ExploreReport) -> list[str]:
    """Telemetry per dispatched channel, then why the run did not answer (if it did not)."""
    lines = [telemetry_line(PREFIX, name, entry.outcome.telemetry, entry.outcome.elapsed_s)
             for name, entry in report.channels.items() if entry.outcome is not None]
    for name, entry in report.channels.items():
        if entry.status != "completed" and entry.detail:
            why = entry.reason or entry.status
            first = entry.detail.strip().splitlines()[0] if entry.detail.strip() else ""
            lines.append(f"{PREFIX} explore: {name} {entry.status} ({why}): {first}")
    if report.status == "uncited":
        lines.append(f"{PREFIX} explore: the answer is empty or cites no path:line and does not "
                     f"say {NOT_FOUND}; do not rely on it (exit 3)")
    elif report.status == "failed":
        lines.append(f"{PREFIX} explore: no channel produced an answer (exit 2)")
    return lines


def dry_run_text(roots: Sequence[Path], plans: Sequence[ChannelPlan], repo_root: Path) -> str:
    """Roots, channels, each full prompt and exact argv; nothing is run."""
    lines = ["mmr explore (dry run): nothing is dispatched", "roots:"]
    lines += [f"  {root}" for root in roots]
    lines.append(f"channels: {', '.join(plan.name for plan in plans)}")
    for plan in plans:
        argv = preview_argv(plan.name, plan.channel, repo_root=repo_root, roots=roots)
        delivery = ("prompt in a file" if plan.channel.prompt_delivery == "prompt-file"
                    else "prompt on stdin")
        lines += [
            "", f"--- {plan.name}: command ({delivery}, timeout {plan.timeout_s:g}s) ---",
            shlex.join(argv), "", f"--- {plan.name}: prompt ---", plan.prompt,
        ]
    return "\n".join(lines)
