"""Verdict documents that exercise the CI formats (SARIF, GitHub, rdjsonl) beyond the
reference samples: every location form, characters workflow commands must escape, and
more findings than GitHub annotates in one step."""

from __future__ import annotations

from mmr.models import ChannelResult, ReconciledFinding, ReconciledResults, ResultsMetadata


def _finding(index: int, severity: str, location: str, description: str, **extra: object
             ) -> ReconciledFinding:
    data: dict[str, object] = {
        "severity": severity, "location": location, "description": description,
        "suggestion": "", "confidence": "medium", "sources": ["codex"], "agreement": "unique",
        "finding_key": f"{index:040x}", "description_shingle": [],
        "generated_id": f"F-{index:03d}",
    }
    data.update(extra)
    return ReconciledFinding.model_validate(data)


def _results(findings: list[ReconciledFinding], verdict: str = "blocked",
             summary: str = "Review blocked — 2 finding(s) at or above P1") -> ReconciledResults:
    return ReconciledResults(
        job_id="mmr-cafe00000001", verdict=verdict, fix_threshold="P1",  # type: ignore[arg-type]
        advisory_count=sum(1 for f in findings if f.acknowledged or f.severity in ("P2", "P3")),
        approved=verdict in ("pass", "degraded-pass"), summary=summary,
        reconciled_findings=findings,
        per_channel={
            "codex": ChannelResult(status="completed", elapsed="3.0s", findings=[]),
            "claude": ChannelResult(status="completed", elapsed="4.5s", findings=[]),
        },
        metadata=ResultsMetadata(channels_dispatched=2, channels_completed=2,
                                 channels_partial=0, total_elapsed="4.5s"),
    )


def locations_and_escaping() -> ReconciledResults:
    """Each location form of spec ch. 04 §2.2 and GitHub anchors; text that needs escaping."""
    return _results([
        _finding(1, "P0", "src/api/handler.py:10-14", "Secret: token, logged at 100%",
                 suggestion="Drop the log line;\nrotate the token", category="Security",
                 sources=["claude", "codex"], agreement="consensus", confidence="high"),
        _finding(2, "P1", "./lib/a,b:c.py:7:3", "Comma, colon: in the path",
                 category="correctness", reported_confidence="confirmed"),
        _finding(3, "P2", "docs/Read Me.md (line 4)", "Spaces and ünïcode — in the path",
                 category="docs"),
        _finding(4, "P2", "src/app.ts#L20-L22", "A GitHub anchor", category="correctness"),
        _finding(5, "P3", "unknown", "No file at all", category=""),
        _finding(6, "P3", "Section 2: T2-B", "A document section, not a file",
                 category="doc conformance"),
        _finding(7, "P2", "/abs/path/x.go:3", "An absolute path", acknowledged=True,
                 ack_match="fuzzy"),
        _finding(8, "P1", "src/carriage.py:0", "Line zero\r\nis no line"),
    ])


def many_findings() -> ReconciledResults:
    """More findings of each level than GitHub shows in one step (10 a level)."""
    findings = [_finding(i, "P1", f"src/e{i}.py:{i}", f"blocking {i}") for i in range(1, 13)]
    findings += [_finding(i, "P2", f"src/w{i}.py:{i}", f"advisory {i}") for i in range(13, 25)]
    findings += [_finding(i, "P3", f"src/n{i}.py:{i}", f"nit {i}") for i in range(25, 28)]
    return _results(findings, summary="Review blocked — 12 finding(s) at or above P1")


def passing_with_notices() -> ReconciledResults:
    """A pass whose only findings are notices: the verdict takes a notice slot."""
    findings = [_finding(i, "P3", f"src/n{i}.py:{i}", f"nit {i}") for i in range(1, 11)]
    return _results(findings, verdict="pass", summary="Review passed")


CI_SAMPLES = {
    "ci-locations": locations_and_escaping,
    "ci-many": many_findings,
    "ci-notices": passing_with_notices,
}
