"""The critique report as text (``--format text``, the default).

Sections are separated by blank lines; ``CHANNELS`` and ``SYNTHESIS`` always appear, the
others only when they have something to say. Items raised by several channels come first
(``CONVERGENCE``, or ``PERSPECTIVES`` with lenses, where agreement may just be overlapping
roles), then the splits the synthesis found, then single-model items grouped by kind.
"""

from __future__ import annotations

from collections.abc import Iterable

from mmr.critique.models import KIND_ORDER, CritiqueReport, ReconciledItem, Split
from mmr.critique.parser import FAILED

KIND_HEADINGS = {"concern": "CONCERNS", "alternative": "ALTERNATIVES",
                 "consideration": "CONSIDERATIONS", "open-question": "OPEN QUESTIONS"}
CONVERGENCE = "CONVERGENCE — independent models agreed (high signal)"
PERSPECTIVES = "PERSPECTIVES — raised by more than one channel"
DIVERGENCE = "DIVERGENCE — models split (your judgment call)"
CONTEXT_USED = "CONTEXT USED — repo files the models judged the design against"
NO_ITEMS = "No critique items were returned."
_DETAIL = "      "


def _indented(text: str, indent: str) -> str:
    """Continuation lines of a multi-line text start under its first line."""
    return text.replace("\n", "\n" + indent)


def _item_lines(item: ReconciledItem, tag: str | None) -> list[str]:
    head = f"[{tag}] " if tag else ""
    lines = [f"  • {head}{item.theme} — {_indented(item.observation, '    ')}"]
    if item.recommendation:
        lines.append(f"{_DETAIL}↳ {_indented(item.recommendation, _DETAIL + '  ')}")
    lines.append(f"{_DETAIL}sources: {', '.join(item.sources)}")
    return lines


def _split_lines(split: Split) -> list[str]:
    lines = [f"  ▲ {split.theme}"]
    for position in split.positions:
        sources = ", ".join(position.sources) or "—"
        ids = f" [{', '.join(position.item_ids)}]" if position.item_ids else ""
        lines.append(f"{_DETAIL}- {position.stance} (sources: {sources}){ids}")
    if split.crux:
        lines.append(f"{_DETAIL}↳ crux: {split.crux}")
    return lines


def _header(report: CritiqueReport) -> str:
    count = len(report.per_channel)
    parts = [f"CRITIQUE · {report.artifact_source} · {count} channel{'' if count == 1 else 's'}"]
    if report.round is not None:
        parts.append(f"round {report.round}")
    if report.lenses:
        parts.append(f"lenses: {', '.join(report.lenses)}")
    parts.append("advisory (no gate)")
    return " · ".join(parts)


def _shared_section(report: CritiqueReport) -> list[str]:
    shared = [item for item in report.items if item.agreement != "unique"]
    if not shared:
        return []
    lensed = bool(report.lenses)
    lines = [PERSPECTIVES if lensed else CONVERGENCE]
    for item in shared:
        lines += _item_lines(item, f"{item.kind} · {'perspective' if lensed else item.agreement}")
    return lines


def _kind_sections(report: CritiqueReport) -> Iterable[list[str]]:
    for kind in KIND_ORDER:
        items = [i for i in report.items if i.agreement == "unique" and i.kind == kind]
        if items:
            yield [KIND_HEADINGS[kind], *(line for i in items for line in _item_lines(i, None))]


def _context_section(report: CritiqueReport) -> list[str]:
    if not report.context_used and not report.context_skipped:
        return []
    lines = [CONTEXT_USED, "  " + (", ".join(report.context_used or []) or "(none)")]
    if report.context_skipped:
        left_out = ", ".join(f"{s.path} ({s.reason})" for s in report.context_skipped)
        lines.append(f"  left out: {left_out}")
    return lines


def _channel_lines(report: CritiqueReport) -> list[str]:
    lines = ["CHANNELS"]
    for name, entry in report.per_channel.items():
        if entry.status == "completed":  # a reply that did not parse says why
            why = entry.summary if (entry.summary or "").startswith(FAILED) else None
            lines.append(f"  {name}: {entry.item_count} item(s)" + (f" — {why}" if why else ""))
        else:
            why = entry.recovery or entry.reason
            lines.append(f"  {name}: {entry.status}" + (f" — {why}" if why else ""))
    return lines


def render_text(report: CritiqueReport) -> str:
    """The text report, without a trailing newline."""
    sections: list[list[str]] = [[_header(report)], _shared_section(report)]
    if report.splits:
        sections.append([DIVERGENCE, *(line for s in report.splits for line in _split_lines(s))])
    sections += _kind_sections(report)
    if not report.items and not report.splits:
        sections.append([NO_ITEMS])
    sections += [_context_section(report), _channel_lines(report)]
    closing = ["SYNTHESIS"]
    if report.synthesis:
        closing += [f"  {_indented(report.synthesis, '  ')}", f"  ({report.summary})"]
    else:
        closing.append(f"  {report.summary}")
    sections.append(closing)
    return "\n\n".join("\n".join(lines) for lines in sections if lines)
