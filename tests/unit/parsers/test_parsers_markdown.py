"""``markdown-findings`` grammar and its citation gate; repo roots are tmp dirs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mmr.models import ParsedOutput, ParseFailure
from mmr.parsers import parse_channel_output
from mmr.parsers.citations import find_citation, path_exists_under

MD: dict[str, Any] = {"kind": "markdown-findings"}
NO_GATE: dict[str, Any] = {"kind": "markdown-findings", "gate": {"require_existing_path": False}}

REPLY = """Preamble that is ignored: src/ignored.py:1

### [BLOCKER] SQL built from user input
The query in `src/db.py:42` concatenates the id.

It is reachable from the HTTP handler.
```python
q = "SELECT * FROM t WHERE id=" + id   # lib/excerpt.py:9 is not a citation
```
**Category:** security
Confidence: suspected
Suggestion: use a parameterised query
and validate the id.

Trailing free text.

### [NIT]   Naming
rename `x` in ./src/util.py:3-5
Category: style
Confidence: maybe

### [SHOULD-FIX] No citation here
Just words.
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "db.py").write_text("x = 1\n")
    (tmp_path / "src" / "util.py").write_text("y = 2\n")
    return tmp_path


def parse(raw: str, spec: dict[str, Any], root: Path | None) -> ParsedOutput | ParseFailure:
    return parse_channel_output(raw, spec, repo_root=root)


def test_grammar(repo: Path) -> None:
    result = parse(REPLY, MD, repo)
    assert isinstance(result, ParsedOutput), result
    assert (result.approved, result.summary) == (False, "3 finding(s) (markdown)")
    blocker, nit, should = (f.to_json_dict() for f in result.findings)
    assert blocker == {
        "severity": "P1",
        "location": "src/db.py:42",
        "description": "SQL built from user input\n"
                       "The query in `src/db.py:42` concatenates the id.\n"
                       "It is reachable from the HTTP handler.\nTrailing free text.",
        "suggestion": "use a parameterised query and validate the id.",
        "category": "security",
        "reported_confidence": "suspected",
    }
    assert nit == {
        "severity": "P3", "location": "src/util.py:3-5",
        "description": "Naming\nrename `x` in ./src/util.py:3-5", "suggestion": "",
        "category": "style",
    }
    assert should == {"severity": "P2", "location": "unknown",
                      "description": "No citation here\nJust words.", "suggestion": ""}


def test_no_findings(repo: Path) -> None:
    for root in (repo, None):
        result = parse("Searched everything.\n  NO FINDINGS  \n", MD, root)
        assert isinstance(result, ParsedOutput)
        assert (result.approved, result.findings, result.summary) == (True, [], "NO FINDINGS")


def test_blocks_win_over_no_findings(repo: Path) -> None:
    result = parse("NO FINDINGS\n### [NIT] tidy src/db.py:1\n", MD, repo)
    assert isinstance(result, ParsedOutput)
    assert len(result.findings) == 1
    assert result.approved is True


def test_neither_blocks_nor_no_findings_is_a_parse_error(repo: Path) -> None:
    result = parse("I found nothing worth mentioning. NO FINDINGS here.", MD, repo)
    assert isinstance(result, ParseFailure)
    assert (result.error, result.reason) == (
        "markdown-findings: no finding blocks and no NO FINDINGS line", "parse_error",
    )


@pytest.mark.parametrize(
    "reply",
    ["### [BLOCKER] bug at missing/file.py:3\n",  # path does not exist
     "### [BLOCKER] bug at line :42\n",  # a bare :NNN is not a citation
     "### [BLOCKER] bug at ../outside.py:1\n",  # leaves the root
     "### [BLOCKER] no citation at all\n",
     "### [BLOCKER] bug\n```\nsrc/db.py:1\n```\n"],  # citations in excerpts do not count
)
def test_gate_fails_without_an_existing_cited_path(repo: Path, reply: str) -> None:
    (repo.parent / "outside.py").write_text("")
    result = parse(reply, MD, repo)
    assert isinstance(result, ParseFailure)
    assert result.reason == "gate_failed"
    assert result.error == (
        "markdown-findings gate: no finding cites a path that exists under the repository root"
    )


def test_gate_needs_only_one_existing_citation(repo: Path) -> None:
    reply = "### [NIT] a gone.py:1\n### [NIT] b\nsee src/db.py:1\n"
    result = parse(reply, MD, repo)
    assert isinstance(result, ParsedOutput)
    assert [f.location for f in result.findings] == ["gone.py:1", "src/db.py:1"]


def test_without_repo_root_only_no_findings_passes_the_gate() -> None:
    result = parse("### [NIT] tidy src/db.py:1\n", MD, None)
    assert isinstance(result, ParseFailure)
    assert result.reason == "gate_failed"
    ungated = parse("### [NIT] tidy src/db.py:1\n", NO_GATE, None)
    assert isinstance(ungated, ParsedOutput)


def test_symlink_out_of_the_root_does_not_count(
    repo: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("outside") / "secret.py"
    outside.write_text("")
    (repo / "link.py").symlink_to(outside)
    assert not path_exists_under(repo, "link.py")
    assert path_exists_under(repo, "src/../src/db.py")
    assert not path_exists_under(repo, "src")  # a directory is not a file


def test_custom_severity_map_and_crlf(repo: Path) -> None:
    spec = {"kind": "markdown-findings", "severity_map": {"HIGH": "P0", "LOW": "P3"}}
    reply = "### [HIGH] crash in src/db.py:2\r\n### [BLOCKER] ignored tag\r\n### [LOW] nit\r\n"
    result = parse(reply, spec, repo)
    assert isinstance(result, ParsedOutput)
    assert [(f.severity, f.description) for f in result.findings] == [
        ("P0", "crash in src/db.py:2\n### [BLOCKER] ignored tag"), ("P3", "nit"),
    ]


def test_unwrapped_from_a_minimax_envelope(repo: Path) -> None:
    envelope = json.dumps({"is_error": False, "result": "### [SHOULD-FIX] leak in src/db.py:1"})
    spec = {"kind": "unwrap-jsonpath", "wrap": "$.result", "error_path": "$.is_error",
            "then": MD}
    result = parse(envelope, spec, repo)
    assert isinstance(result, ParsedOutput)
    assert result.findings[0].severity == "P2"


@pytest.mark.parametrize(
    ("text", "location"),
    [("see src/a.py:12 here", "src/a.py:12"), ("`pkg/mod.ts:3-9`", "pkg/mod.ts:3-9"),
     ("./a.py:5", "a.py:5"), ("a/b:7", "a/b:7"), ("x //abs/y.go:4", "abs/y.go:4"),
     ("/etc/passwd:1", "etc/passwd:1"), ("at 12:30:45 in file.rs:8", "file.rs:8"),
     ("a.b-c:1 then d.e:2", "d.e:2")],
)
def test_citations(text: str, location: str) -> None:
    citation = find_citation(text)
    assert citation is not None
    assert citation.location == location


@pytest.mark.parametrize("text", ["12:30", ":42", "Makefile:3", "dir/:4", "a.py: 3", "no colon"])
def test_not_citations(text: str) -> None:
    assert find_citation(text) is None
