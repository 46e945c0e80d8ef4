"""Limits a hostile reply cannot cross, each with a visible note.

A reply under the 16 MiB read cap can still hold one 8 MB description (1.3 GB of RSS and
124 MB of ``description_shingle`` JSON before) or tens of thousands of findings. After
parsing, a channel keeps its :data:`MAX_FINDINGS` most severe findings (the first ones of
each severity, in reply order: 500 nits cannot push a P0 out of the gate), and each
description and suggestion its first :data:`MAX_FIELD_CHARS` characters; identity and shingles are
computed on the cut text. The channel's ``summary`` and ``note`` say what was cut, and the
result shows the note (JSON ``per_channel.<ch>.note``, a ``Note:`` in text and markdown).
"""

from __future__ import annotations

from mmr.models import Finding, ParsedOutput
from mmr.vocabulary import SEVERITY_ORDER

MAX_FINDINGS = 500
MAX_FIELD_CHARS = 8 * 1024
CUT_MARK = " […]"


def _cut(text: str) -> str:
    return text[:MAX_FIELD_CHARS] + CUT_MARK


def _most_severe(findings: list[Finding]) -> list[Finding]:
    """The :data:`MAX_FINDINGS` most severe, the earlier first within a severity, in reply order."""
    rank = [SEVERITY_ORDER.get(f.severity, len(SEVERITY_ORDER)) for f in findings]
    ranked = sorted(range(len(findings)), key=lambda i: (rank[i], i))
    return [findings[i] for i in sorted(ranked[:MAX_FINDINGS])]


def apply_reply_limits(parsed: ParsedOutput) -> ParsedOutput:
    """``parsed`` within the limits; the same object when nothing is over them."""
    findings = parsed.findings
    dropped = max(0, len(findings) - MAX_FINDINGS)
    kept = findings[:MAX_FINDINGS] if not dropped else _most_severe(findings)
    cut = 0
    limited: list[Finding] = []
    for original in kept:
        update = {name: _cut(getattr(original, name)) for name in ("description", "suggestion")
                  if len(getattr(original, name)) > MAX_FIELD_CHARS}
        cut += bool(update)
        limited.append(original.model_copy(update=update) if update else original)
    if not dropped and not cut:
        return parsed
    notes = []
    if dropped:
        notes.append(f"{dropped} findings over the limit of {MAX_FINDINGS} per channel "
                     "were dropped")
    if cut:
        notes.append(f"{cut} findings had a description or suggestion cut to "
                     f"{MAX_FIELD_CHARS} characters")
    note = "[mmr: " + "; ".join(notes) + "]"
    summary = f"{parsed.summary} {note}" if parsed.summary else note
    return ParsedOutput(approved=parsed.approved, findings=limited, summary=summary, note=note)
