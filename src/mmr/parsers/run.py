"""Run a parser spec on a channel's raw reply; each failure is a typed result."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mmr.models import ParsedOutput, ParseFailure
from mmr.parsers.answer import check_answer
from mmr.parsers.echo import after_echo
from mmr.parsers.errors import GateFailedError
from mmr.parsers.limits import apply_reply_limits
from mmr.parsers.markdown_findings import parse_markdown_findings
from mmr.parsers.regex_findings import parse_regex_findings
from mmr.parsers.registry import get_parser
from mmr.parsers.specs import (
    AnswerSpec,
    MarkdownFindingsSpec,
    ParserSpec,
    RegexFindingsSpec,
    UnwrapJsonpathSpec,
    coerce_parser_spec,
)
from mmr.parsers.unwrap import unwrap_payload

NOT_AN_ANSWER = "answer: the channel's output_parser does not end in an answer parser"


@dataclass(frozen=True, slots=True)
class Answer:
    """What an ``answer`` spec produces: the reply text, not findings."""

    text: str


def run_spec(raw: str, spec: ParserSpec, *, repo_root: Path | None = None) -> ParsedOutput | Answer:
    """Apply ``spec`` to ``raw``; raises on failure (``parse_channel_output`` catches)."""
    if isinstance(spec, str):
        return get_parser(spec)(raw)
    if isinstance(spec, UnwrapJsonpathSpec):
        return run_spec(unwrap_payload(raw, spec), spec.then, repo_root=repo_root)
    if isinstance(spec, RegexFindingsSpec):  # the named JSON parsers cut an echo themselves
        return parse_regex_findings(after_echo(raw), spec)
    if isinstance(spec, MarkdownFindingsSpec):
        return parse_markdown_findings(after_echo(raw), spec, repo_root=repo_root)
    if isinstance(spec, AnswerSpec):
        return Answer(check_answer(raw, spec))
    raise ValueError(f"Unsupported output_parser kind: {getattr(spec, 'kind', spec)}")


def _failure(exc: Exception) -> ParseFailure:
    message = str(exc) or type(exc).__name__
    if isinstance(exc, GateFailedError):
        return ParseFailure(error=message, reason="gate_failed")
    return ParseFailure(error=message)


def parse_channel_output(raw: str, spec: ParserSpec | Mapping[str, Any], *,
                         repo_root: Path | None = None) -> ParsedOutput | ParseFailure:
    """Parse a channel's raw reply with its ``output_parser``; never raises.

    ``spec`` is a parser name, an object spec, or its JSON form from a job record.
    ``repo_root`` is where ``markdown-findings`` looks for cited paths. An ``answer``
    spec yields an approved, finding-free result whose summary is the answer text.
    """
    try:
        result = run_spec(raw, coerce_parser_spec(spec), repo_root=repo_root)
    except Exception as exc:
        return _failure(exc)
    if isinstance(result, Answer):
        return ParsedOutput(approved=True, findings=[], summary=result.text)
    return apply_reply_limits(result) if isinstance(result, ParsedOutput) else result


def parse_answer(
    raw: str, spec: ParserSpec | Mapping[str, Any], *, repo_root: Path | None = None
) -> str | ParseFailure:
    """An explore channel's answer text (its spec must end in ``answer``); never raises."""
    try:
        result = run_spec(raw, coerce_parser_spec(spec), repo_root=repo_root)
    except Exception as exc:
        return _failure(exc)
    if isinstance(result, Answer):
        return result.text
    return ParseFailure(error=NOT_AN_ANSWER)
