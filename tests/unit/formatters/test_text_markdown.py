"""The conditional lines of the text and markdown reports."""

from __future__ import annotations

import pytest

from mmr.formatters.labels import telemetry_parts, verdict_label
from mmr.formatters.markdown import escape_cell, render_markdown
from mmr.formatters.text import DOCTOR_HINT, render_text
from mmr.models import ChannelResult, FindingMember, ReconciledResults, Telemetry

from .samples import blocked_example, clean_pass, gate_document


@pytest.mark.parametrize(
    ("verdict", "label"),
    [("pass", "PASSED"), ("blocked", "BLOCKED"), ("needs-user-decision", "NEEDS DECISION"),
     ("degraded-pass", "PASSED (DEGRADED — 2/3 channels)")],
)
def test_verdict_labels(verdict, label):
    results = blocked_example().model_copy(update={"verdict": verdict})
    assert verdict_label(results) == label
    assert render_text(results).splitlines()[0] == f"MMR {label} — mmr-e06b772bac4b"
    assert render_markdown(results).splitlines()[0] == f"## Multi-Model Review — {label}"


def test_advisory_segment_only_when_positive():
    results = clean_pass()
    assert "Advisory" not in render_text(results)
    assert "Advisory" not in render_markdown(results)
    results = results.model_copy(update={"advisory_count": 1})
    assert render_text(results).splitlines()[1] == (
        "Threshold: P2 | Advisory: 1 | Channels: 2/2 | Elapsed: 2.5s"
    )
    assert "| **Advisory:** 1 |" in render_markdown(results)


def test_trust_line_only_with_trust_mode():
    assert not any(line.startswith("Trust:") for line in render_text(clean_pass()).splitlines())
    results = clean_pass().model_copy(update={"trust_mode": "non-git"})
    assert render_text(results).splitlines()[2] == "Trust: non-git"
    assert render_markdown(results).splitlines()[3] == "**Trust:** non-git"


def test_doctor_hint_only_when_a_channel_is_degraded():
    assert DOCTOR_HINT not in render_text(clean_pass())
    results = clean_pass()
    results.per_channel["grok"] = ChannelResult(status="skipped", elapsed="0s", findings=[])
    assert render_text(results).endswith("  grok: skipped (0s)\n\n" + DOCTOR_HINT)


def test_recovery_line_needs_a_recovery():
    results = clean_pass()
    results.per_channel["grok"] = ChannelResult(status="timeout", elapsed="0s", findings=[])
    assert "→" not in render_text(results)
    results.per_channel["grok"] = ChannelResult(
        status="timeout", elapsed="0s", findings=[], recovery="grok login")
    assert "  grok: timeout (0s)\n    → grok login" in render_text(results)


def test_no_findings_forms():
    assert "\nNo findings.\nChannels:\n" in render_text(clean_pass())
    assert "\nNo findings.\n\n### Channels\n" in render_markdown(clean_pass())


def test_empty_suggestion_is_omitted_in_text_and_an_empty_cell_in_markdown():
    results = blocked_example()
    results.reconciled_findings[0].suggestion = ""
    assert "Suggestion:" not in render_text(results).split("[P2]")[0]
    assert "| SQL built by concatenation |  | claude, codex |" in render_markdown(results)


def test_markdown_cells_escape_pipes_and_line_breaks():
    # Issue 15: a lone CR is a CommonMark line ending too (it used to end the table row).
    assert escape_cell("a|b\r\nc\nd\re") == "a\\|b<br>c<br>d<br>e"


def test_gate_document_prints_only_its_summary():
    document = gate_document()
    assert render_text(document) == document.summary
    assert render_markdown(document) == document.summary


def test_telemetry_parts_format_counts_and_cost():
    telemetry = Telemetry(input_tokens=1234567, output_tokens=12.0, cost_usd=1.5, turns=2)
    assert telemetry_parts(telemetry) == [
        "tokens in 1,234,567", "out 12", "cost $1.5000", "turns 2",
    ]
    assert telemetry_parts(None) == []
    assert telemetry_parts(Telemetry(context_window=2.5)) == ["context 2.5"]


def test_the_markdown_gate_pastes_as_written() -> None:
    """The gate's literals went through the markdown escaping before their code spans: the
    command read ``'HEAD\\~1'`` in a code span (a backslash is literal there), so the pasted
    command gave git a bad revision; a backtick in a file name ended its span early."""
    from markdown_it import MarkdownIt

    from mmr.formatters.markdown import render_markdown
    from mmr.models import GatedAck, Ratification
    from tests.unit.formatters.samples import gate_document

    command = "mmr review --base 'HEAD~1' --format markdown --accept-new-acks"
    document = gate_document().model_copy(update={"ratification": Ratification(
        acks=[GatedAck(file=".mmr/acks/a*b`c.json", ack_reason="ok *really*")],
        config_change=False, command=command)})
    tokens = MarkdownIt().parse(render_markdown(document))
    spans = [child.content for token in tokens if token.children
             for child in token.children if child.type == "code_inline"]
    assert spans == [".mmr/acks/a*b`c.json", command]
    text = [child.content for token in tokens if token.children
            for child in token.children if child.type == "text"]
    assert "em_open" not in {child.type for token in tokens if token.children
                             for child in token.children}, text  # the reason stays escaped


def _merged_example() -> ReconciledResults:
    """The blocked example's first finding as three reviewers' group."""
    results = blocked_example()
    first = results.reconciled_findings[0]
    members = [
        FindingMember(channel="claude", severity=first.severity, location=first.location,
                      description=first.description, suggestion=first.suggestion,
                      finding_key=first.finding_key),
        FindingMember(channel="codex", severity="P2", location="src/db.py:44",
                      description="User input | reaches the SQL string unescaped",
                      suggestion="", finding_key="b" * 40),
        FindingMember(channel="gemini", severity="P1", location="src/db.py:40",
                      description="Injection:\n" + "query built by concatenation " * 10,
                      suggestion="", finding_key="c" * 40),
    ]
    merged = first.model_copy(update={"members": members,
                                      "sources": ["claude", "codex", "gemini"]})
    return results.model_copy(
        update={"reconciled_findings": [merged, *results.reconciled_findings[1:]]})


def test_a_merged_finding_names_who_agrees_and_folds_the_other_wordings():
    text = render_text(_merged_example()).splitlines()
    at = text.index("    claude, codex, gemini agree; other wordings:")
    assert text[at + 1] == ("      - codex [P2] src/db.py:44: User input | reaches the SQL "
                            "string unescaped")
    assert text[at + 2].startswith("      - gemini [P1] src/db.py:40: Injection: query built")
    assert text[at + 2].endswith("…") and len(text[at + 2]) < 200
    row = next(line for line in render_markdown(_merged_example()).splitlines()
               if "agree" in line)
    assert "| claude, codex, gemini agree |" in row
    assert ("<details><summary>other wordings</summary>codex [P2] src/db.py:44: User input "
            "\\| reaches the SQL string unescaped<br>gemini [P1]") in row


def test_a_single_reviewers_finding_shows_no_agreement_line():
    results = blocked_example()
    first = results.reconciled_findings[0]
    alone = first.model_copy(update={"members": [FindingMember(
        channel="claude", severity=first.severity, location=first.location,
        description=first.description, suggestion=first.suggestion,
        finding_key=first.finding_key)]})
    results = results.model_copy(update={"reconciled_findings": [alone]})
    assert "agree" not in render_text(results)
    assert "agree" not in render_markdown(results)
