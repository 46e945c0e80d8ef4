"""``markdown-findings``: ``### [BLOCKER|SHOULD-FIX|NIT] title`` blocks or ``NO FINDINGS``.

Inside a block, line by line (fenced excerpts skipped): ``Category:``, ``Confidence:``
and ``Suggestion:`` labels, the first ``path:line`` citation (the location), and free
text (the description, after the title). The citation gate then asks for at least one
block whose cited path exists under the repository root.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from mmr.models import Finding, ParsedOutput, ReportedConfidence
from mmr.parsers.citations import Citation, find_citation, path_exists_under
from mmr.parsers.errors import GateFailedError, ParseError
from mmr.parsers.specs import MarkdownFindingsSpec
from mmr.parsers.validate import has_blocking
from mmr.vocabulary import Severity

NO_FINDINGS = "NO FINDINGS"
NO_BLOCKS = "markdown-findings: no finding blocks and no NO FINDINGS line"
GATE_FAILED = (
    "markdown-findings gate: no finding cites a path that exists under the repository root"
)
_LABEL = re.compile(
    r"(?:[-*+][ \t]+)?\*{0,2}(category|confidence|suggestion)\*{0,2}[ \t]*:[ \t]*(.*)",
    re.IGNORECASE,
)
_CONFIDENCES: dict[str, ReportedConfidence] = {"confirmed": "confirmed", "suspected": "suspected"}


@lru_cache(maxsize=32)
def _header_pattern(tags: tuple[str, ...]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(tag) for tag in tags)
    return re.compile(rf"###[ \t]+\[({alternatives})\][ \t]*(.*)")


@dataclass
class _Block:
    tag: str
    title: str
    lines: list[str] = field(default_factory=list)


def _split_blocks(raw: str, tags: tuple[str, ...]) -> tuple[list[_Block], bool]:
    """The finding blocks, and whether a ``NO FINDINGS`` line was seen."""
    header = _header_pattern(tags)
    blocks: list[_Block] = []
    saw_no_findings = False
    for raw_line in raw.split("\n"):
        line = raw_line.removesuffix("\r")
        match = header.fullmatch(line)
        if match:
            blocks.append(_Block(tag=match.group(1), title=match.group(2).strip()))
        elif line.strip() == NO_FINDINGS:
            saw_no_findings = True
        elif blocks:
            blocks[-1].lines.append(line)
    return blocks, saw_no_findings


def _is_bare_citation(text: str) -> bool:
    """A line that only cites ``path:line`` (e.g. `` `src/a.py:12` ``): location, not prose.

    Keeping it in the description would make the same finding read differently from a
    JSON channel's and miss the fuzzy match that builds consensus.
    """
    bare = text.lstrip("-*> ").strip().strip("`*").strip()
    citation = find_citation(bare)
    return citation is not None and bare.removeprefix("./") == citation.location


def _read_block(block: _Block, severity: Severity) -> tuple[Finding, Citation | None]:
    """One finding from one block (``severity`` is already mapped to P0..P3)."""
    citation = find_citation(block.title)
    free: list[str] = []
    suggestion: list[str] = []
    category: str | None = None
    confidence: ReportedConfidence | None = None
    in_excerpt = in_suggestion = False
    for line in block.lines:
        text = line.strip()
        if text.startswith("```"):
            in_excerpt = not in_excerpt
            in_suggestion = False
            continue
        if in_excerpt:
            continue
        if citation is None:
            citation = find_citation(text)
        label = _LABEL.fullmatch(text)
        if label:
            name, value = label.group(1).lower(), label.group(2).strip().strip("*`").strip()
            in_suggestion = name == "suggestion"
            if name == "category" and value and category is None:
                category = value
            elif name == "confidence":
                confidence = _CONFIDENCES.get(value.lower(), confidence)
            elif in_suggestion and value:
                suggestion.append(value)
        elif in_suggestion and text:
            suggestion.append(text)
        else:
            in_suggestion = False
            if text and not _is_bare_citation(text):
                free.append(text)
    description = "\n".join([block.title, *free]) if free else block.title
    finding = Finding(severity=severity, location=citation.location if citation else "unknown",
                      description=description, suggestion=" ".join(suggestion), category=category,
                      reported_confidence=confidence)
    return finding, citation


def parse_markdown_findings(
    raw: str, spec: MarkdownFindingsSpec, *, repo_root: Path | None
) -> ParsedOutput:
    """Parse the blocks; without ``repo_root`` the gate passes only for ``NO FINDINGS``."""
    blocks, saw_no_findings = _split_blocks(raw, tuple(spec.severity_map))
    if not blocks:
        if not saw_no_findings:
            raise ParseError(NO_BLOCKS)
        return ParsedOutput(approved=True, findings=[], summary=NO_FINDINGS)
    read = [_read_block(block, spec.severity_map[block.tag]) for block in blocks]
    if spec.gate.require_existing_path and not any(
        citation is not None and path_exists_under(repo_root, citation.path)
        for _, citation in read
    ):
        raise GateFailedError(GATE_FAILED)
    findings = [finding for finding, _ in read]
    return ParsedOutput(approved=not has_blocking(findings), findings=findings,
                        summary=f"{len(findings)} finding(s) (markdown)")
