"""``--format github``: workflow commands, limits, the step summary."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mmr.formatters import render
from mmr.formatters.github import (
    ANNOTATIONS_PER_LEVEL,
    escape_data,
    escape_property,
    render_github,
    workflow_command,
)
from mmr.formatters.markdown import render_markdown
from mmr.formatters.step_summary import (
    STEP_SUMMARY_LIMIT,
    append_step_summary,
    summary_markdown,
)
from mmr.formatters.text import render_text
from mmr.vocabulary import FORMATS

from .ci_samples import CI_SAMPLES, _finding, _results
from .samples import blocked_example, clean_pass, gate_document

GOLDEN = Path(__file__).parent / "golden"
COMMAND = re.compile(r"^::(error|warning|notice)( [^:]*)?::")


def commands(output: str) -> list[str]:
    """The workflow-command lines before the quoted report."""
    head = output.split("\n::stop-commands::", 1)[0]
    return head.splitlines()


@pytest.mark.parametrize("stem", sorted(CI_SAMPLES))
def test_ci_samples_match_golden(stem):
    expected = (GOLDEN / f"{stem}.github.txt").read_bytes().decode("utf-8")
    assert render_github(CI_SAMPLES[stem]()) + "\n" == expected


def test_escaping_follows_githubs_rules():
    assert escape_data("100% a\r\nb: c, d") == "100%25 a%0D%0Ab: c, d"
    assert escape_property("100% a\r\nb: c, d") == "100%25 a%0D%0Ab%3A c%2C d"
    # % first, so an escape already in the text is not decoded by the runner.
    assert escape_data("%0A") == "%250A"
    assert workflow_command("notice", "hi") == "::notice::hi"
    assert workflow_command("error", "m", file="a,b.py", line=3, col=None) == (
        "::error file=a%2Cb.py,line=3::m")


def test_blocked_review_commands_in_order():
    lines = commands(render_github(blocked_example()))
    assert lines == [
        "::error file=src/db.ts,line=42,title=mmr P1 · consensus · claude%2C codex::"
        "SQL built by concatenation%0A%0ASuggestion: Use bind parameters",
        "::notice file=src/retry.ts,line=9,title=mmr P2 · unique · codex::No backoff%0A%0A"
        "Suggestion: Add backoff%0A%0AAcknowledged (exact): "
        "accepted: callers retry at most 3 times",
        "::notice file=src/db.ts,line=7,title=mmr P3 · unique · claude::"
        "Unused import%0A%0ASuggestion: Remove it",
        "::error title=mmr verdict::Review blocked — 1 finding(s) at or above P2",
    ]


def test_every_annotation_is_one_line():
    for make in CI_SAMPLES.values():
        for line in commands(render_github(make())):
            assert COMMAND.match(line), line


@pytest.mark.parametrize(("verdict", "level"), [
    ("pass", "notice"), ("degraded-pass", "notice"), ("blocked", "error"),
    ("needs-user-decision", "error"),
])
def test_verdict_command_level(verdict, level):
    results = clean_pass().model_copy(update={"verdict": verdict, "summary": "S, s: 5%"})
    assert commands(render_github(results))[-1] == f"::{level} title=mmr verdict::S, s: 5%25"


def test_worst_findings_come_first():
    findings = [
        _finding(1, "P3", "a.py:1", "nit"),
        _finding(2, "P2", "b.py:1", "advisory"),
        _finding(3, "P0", "c.py:1", "blocker"),
        _finding(4, "P1", "d.py:1", "acked", acknowledged=True),
        _finding(5, "P1", "e.py:1", "second blocker"),
    ]
    lines = commands(render_github(_results(findings)))
    order = [line.split("::")[2].split("%0A")[0] for line in lines[:-1]]
    assert order == ["blocker", "second blocker", "advisory", "nit", "acked"]


def count_levels(lines: list[str]) -> dict[str, int]:
    counts = {"error": 0, "warning": 0, "notice": 0}
    for line in lines:
        counts[COMMAND.match(line).group(1)] += 1
    return counts


@pytest.mark.parametrize("stem", sorted(CI_SAMPLES))
def test_never_more_than_githubs_limit_of_a_level(stem):
    lines = commands(render_github(CI_SAMPLES[stem]()))
    assert max(count_levels(lines).values()) <= ANNOTATIONS_PER_LEVEL
    # The verdict is always printed (and so never the one GitHub drops).
    assert "title=mmr verdict::" in lines[-1]


def test_overflow_notice_counts_what_was_left_out():
    lines = commands(render_github(CI_SAMPLES["ci-many"]()))
    assert count_levels(lines) == {"error": 10, "warning": 10, "notice": 4}
    [overflow] = [line for line in lines if line.startswith("::notice title=mmr::")]
    assert overflow.startswith("::notice title=mmr::5 more finding(s) are not annotated")


def test_no_overflow_notice_within_limits():
    assert "more finding(s)" not in render_github(blocked_example())


def test_text_report_follows_between_stop_commands_markers():
    results = blocked_example()
    output = render_github(results)
    report = render_text(results)
    match = re.search(r"^::stop-commands::(\S+)\n(.*)\n::(\S+)::$", output, re.S | re.M)
    assert match is not None
    token, quoted, end = match.groups()
    assert token == end and quoted == report
    assert output.endswith(f"::{token}::")


def test_model_text_cannot_inject_workflow_commands():
    evil = "looks fine\n::add-mask::x\n::endgroup::\n::set-env name=A::b"
    results = _results([_finding(1, "P1", "a.py:1", evil)])
    output = render_github(results)
    token = re.search(r"^::stop-commands::(\S+)$", output, re.M).group(1)
    before, quoted = output.split(f"::stop-commands::{token}\n", 1)
    # Outside the quoted report every line is one of our escaped annotations ...
    assert all(COMMAND.match(line) for line in before.splitlines())
    # ... and nothing inside it can end the quoting early.
    assert f"::{token}::" not in quoted[: -len(f"::{token}::")]
    assert "::add-mask::x" in quoted


def test_gate_document_prints_the_summary_command_and_line():
    output = render_github(gate_document())
    assert commands(output) == [f"::error title=mmr verdict::{gate_document().summary}"]
    assert gate_document().summary in output.split("::stop-commands::")[1]


def test_render_appends_the_step_summary(tmp_path, monkeypatch):
    summary = tmp_path / "summary.md"
    summary.write_text("# Earlier step output\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    render(blocked_example(), "github")
    assert summary.read_text(encoding="utf-8") == (
        "# Earlier step output\n" + render_markdown(blocked_example()) + "\n")


def test_no_step_summary_without_the_variable(tmp_path):
    assert append_step_summary(blocked_example(), environ={}) is False


def test_other_formats_leave_the_step_summary_alone(tmp_path, monkeypatch):
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    for fmt in FORMATS:
        if fmt != "github":
            render(blocked_example(), fmt)
    assert not summary.exists()


def test_unwritable_step_summary_is_a_warning(tmp_path):
    warnings: list[str] = []
    env = {"GITHUB_STEP_SUMMARY": str(tmp_path)}  # a directory cannot be appended to
    assert append_step_summary(blocked_example(), environ=env, warn=warnings.append) is False
    [warning] = warnings
    assert warning.startswith("[mmr] warning: could not write the step summary: ")


def test_unwritable_step_summary_warns_on_stderr_and_still_renders(tmp_path, monkeypatch,
                                                                    capsys):
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "missing-dir" / "summary.md"))
    output = render(blocked_example(), "github")
    assert output == render_github(blocked_example())
    assert "[mmr] warning: could not write the step summary: " in capsys.readouterr().err


def big_review(count: int, description_size: int):
    findings = [_finding(i, "P2", f"src/f{i}.py:{i}", "x" * description_size)
                for i in range(1, count + 1)]
    return _results(findings)


def test_step_summary_is_cut_to_fit_the_limit():
    results = big_review(40, 50_000)  # about 2 MB of markdown
    text = summary_markdown(results, STEP_SUMMARY_LIMIT)
    assert text is not None
    assert len(text.encode()) <= STEP_SUMMARY_LIMIT
    kept = text.count("| P2 |")
    assert 0 < kept < 40
    assert f"_{40 - kept} more finding(s) are not shown" in text


def test_step_summary_cuts_off_diff_findings_too():
    # Issue 13: findings outside the diff count toward the limit and are cut first.
    base = big_review(4, 50_000)
    off = big_review(40, 50_000).reconciled_findings
    results = base.model_copy(update={"outside_diff_findings": off})
    text = summary_markdown(results, STEP_SUMMARY_LIMIT)
    assert text is not None and len(text.encode()) <= STEP_SUMMARY_LIMIT
    assert "### Findings" in text and "### Outside the diff (" in text
    kept = text.count("| P2 |")
    assert 4 < kept < 44
    assert f"_{44 - kept} more finding(s) are not shown" in text


def test_step_summary_counts_what_the_file_already_holds(tmp_path):
    summary = tmp_path / "summary.md"
    summary.write_bytes(b"y" * (STEP_SUMMARY_LIMIT - 30_000))
    results = big_review(5, 10_000)
    assert append_step_summary(results, environ={"GITHUB_STEP_SUMMARY": str(summary)})
    assert summary.stat().st_size <= STEP_SUMMARY_LIMIT
    assert "more finding(s) are not shown" in summary.read_text(encoding="utf-8")


def test_full_step_summary_file_is_left_alone(tmp_path):
    summary = tmp_path / "summary.md"
    summary.write_bytes(b"y" * STEP_SUMMARY_LIMIT)
    warnings: list[str] = []
    env = {"GITHUB_STEP_SUMMARY": str(summary)}
    assert append_step_summary(blocked_example(), environ=env, warn=warnings.append) is False
    assert summary.stat().st_size == STEP_SUMMARY_LIMIT
    assert "1 MiB" in warnings[0]
