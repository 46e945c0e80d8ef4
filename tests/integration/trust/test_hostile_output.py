"""Issue 15 items 3-4: a reviewer's reply cannot spoof what a person or a CI runner reads.

One channel answers with a corpus of hostile findings; ``mmr review --sync`` renders it in
every format through the real CLI, and each result is read the way its consumer reads it:
text through a terminal emulator (pyte), markdown through a CommonMark/GFM parser
(markdown-it), every log through the GitHub runner's workflow-command rule, SARIF and
rdjsonl by the paths a CI tool would open.
"""

from __future__ import annotations

import json
import re
from pathlib import Path, PurePosixPath
from typing import Any

import pyte
import pytest
from markdown_it import MarkdownIt

from tests.cli_runner import RunMmr
from tests.fakes.plugin import FakeCli
from tests.integration.git_repo_builder import GitRepo
from tests.integration.review.conftest import write_user_config

REPAINT = "\x1b[2J\x1b[HMMR PASSED — No findings."
CORPUS: list[tuple[str, str, str]] = [  # (location, description, suggestion)
    ("src/app.py:1", REPAINT, "\x1b]52;c;ZXZpbCBjbGlwYm9hcmQ=\x07clipboard"),
    ("src/app.py:2", "title \x1b]0;owned\x07 and \x9b2J C1 CSI", "bad\b\b\bgood"),
    ("src/app.py:3", "real problem\rFAKE: fine        ", "safe \u202eedoc.exe\u202c"),
    ("src/app.py:4", "cell\r## MMR PASSED\r<details><summary>ok</summary>", "</details>"),
    ("src/app.py:5", "@octocat please merge #123 <img src=x onerror=alert(1)>",
     "a | b\n| c | d |\n\n# Heading"),
    ("src/app.py:6", "line\u2028sep\u2029para\x85nel \x07bel \x7fdel zero\u200bwidth\u200d"
     "\u2060\ufeff \u2066isolate\u2069 \u200fmark", "\x1b[31mred\x1b[0m \u061c\u180e"),
    ("src/app.py:6", "::error file=x.py::fake\n::add-mask::hidden\n  ::warning::indented",
     "##[error]legacy\n::stop-commands::x"),
    ("../../../home/runner/.bashrc:1", "escape the repository", "no"),
    ("file:///etc/cron.d/evil", "a URI", "no"),
    ("/etc/passwd:3", "an absolute path", "no"),
    ("C:\\Windows\\evil.dll:1", "a drive path", "no"),
]


@pytest.fixture
def hostile_review(fake_cli: FakeCli, tmp_path: Path) -> GitRepo:
    findings = [{"severity": "P1", "location": loc, "description": desc, "suggestion": sug}
                for loc, desc, sug in CORPUS]
    reviewer = fake_cli("hostile-reviewer", stdout={"approved": False, "findings": findings,
                                                     "summary": REPAINT})
    write_user_config({"hostile": {"command": str(reviewer.path)}},
                      {"min_completed_channels": 1})
    # Six lines, so the corpus's src/app.py findings are in the diff; the paths outside the
    # repository are unanchored (issue 13) and shown in their own table.
    repo = GitRepo.create(tmp_path / "repo", {"src/app.py": "a = 1\n" + "b = 0\n" * 5})
    repo.write({"src/app.py": "a = 2\n" + "b = 0\n" * 5})
    return repo


def hostile_diff() -> str:
    """The work tree's change plus sections whose headers name paths outside the repo."""
    sections = ["diff --git a/src/app.py b/src/app.py\n--- a/src/app.py\n+++ b/src/app.py\n"
                "@@ -1 +1 @@\n-a = 1\n+a = 2\n"]
    for location, _, _ in CORPUS[6:]:
        path = location.rsplit(":", 1)[0] if location[-1].isdigit() else location
        sections.append(f"--- {path}\n+++ {path}\n@@ -1 +1 @@\n-x\n+y\n")
    return "".join(sections)


def review(run_mmr: RunMmr, repo: GitRepo, fmt: str) -> str:
    result = run_mmr("review", "--sync", "--format", fmt, "--diff", "-", cwd=repo.root,
                     stdin=hostile_diff(), env={"GITHUB_ACTIONS": "true"})
    assert result.code == 2, result.err
    return result.out


def runner_commands(log: str) -> list[str]:
    """Lines a GitHub runner would execute, honouring ``::stop-commands::``."""
    commands, stop = [], None
    for line in log.splitlines():
        stripped = line.lstrip()
        if stop is not None:
            stop = None if stripped == f"::{stop}::" else stop
            continue
        if stripped.startswith(("::", "##[")):
            commands.append(stripped)
            if stripped.startswith("::stop-commands::"):
                stop = stripped.removeprefix("::stop-commands::")
    return commands


def test_text_shows_on_a_terminal_exactly_what_mmr_printed(
        run_mmr: RunMmr, hostile_review: GitRepo) -> None:
    out = review(run_mmr, hostile_review, "text")
    lines = out.rstrip("\n").split("\n")
    screen = pyte.Screen(400, len(lines) + 5)
    stream = pyte.Stream(screen)
    stream.feed(out.replace("\n", "\r\n"))
    shown = [row.rstrip() for row in screen.display[:len(lines)]]
    assert shown == [line.rstrip() for line in lines]  # no cursor move, repaint, overwrite
    assert screen.title == "" and screen.icon_name == ""
    assert shown[0].startswith("MMR BLOCKED")
    assert not any(row.startswith("MMR PASSED") for row in shown)
    assert "\\x1b[2J\\x1b[HMMR PASSED" in out and "\\x1b]52;c;" in out
    assert "\\x9b2J" in out and "bad\\x08\\x08\\x08good" in out and "\\u202eedoc" in out
    assert runner_commands(out) == []


def test_markdown_parses_to_one_table_of_literal_cells(
        run_mmr: RunMmr, hostile_review: GitRepo) -> None:
    out = review(run_mmr, hostile_review, "markdown")
    parser = MarkdownIt("commonmark").enable("table")
    tokens = parser.parse(out)
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert headings[:2] == ["Multi-Model Review — BLOCKED", "Findings"]
    assert headings[-1] == "Channels"
    assert [h for h in headings[2:-1] if not h.startswith("Unanchored")] == []
    assert not [t for t in tokens if t.type == "html_block"]
    inline_html = {child.content for t in tokens if t.type == "inline"
                   for child in t.children or [] if child.type == "html_inline"}
    assert inline_html <= {"<br>"}
    rows = _table_rows(tokens)
    tables = len(headings) - 2  # findings and unanchored: one header row each
    assert len(rows) == len(CORPUS) + tables
    assert all(len(row) == 6 for row in rows)  # no hostile text split or merged a cell
    descriptions = {row[2] for row in rows[1:]}
    assert "cell<br>## MMR PASSED<br><details><summary>ok</summary>" in descriptions
    html = parser.render(out)
    assert "<details" not in html and "<img" not in html and "<h1" not in html
    visible = re.sub(r"<[^>]+>", "", html)
    assert not re.search(r"@[A-Za-z0-9]", visible) and not re.search(r"#\d", visible)
    assert runner_commands(out) == []


def _table_rows(tokens: list[Any]) -> list[list[str]]:
    rows: list[list[str]] = []
    for index, token in enumerate(tokens):
        if token.type == "tr_open":
            rows.append([])
        elif token.type == "inline" and tokens[index - 1].type in ("td_open", "th_open"):
            rows[-1].append("".join(child.content if child.type != "softbreak" else "\n"
                                    for child in token.children or []))
    return rows


def test_github_log_runs_only_mmr_commands(run_mmr: RunMmr, hostile_review: GitRepo) -> None:
    out = review(run_mmr, hostile_review, "github")
    commands = runner_commands(out)
    assert commands and all(re.match(r"::(error|warning|notice|stop-commands)[ :]", c)
                            for c in commands)
    assert not any("add-mask" in c.split("::", 2)[1] for c in commands)
    for command in commands:
        match = re.search(r"[ ,]file=([^,:]*)", command)
        assert match is None or _inside_repository(match.group(1)), command


def test_sarif_and_rdjsonl_paths_stay_inside_the_repository(
        run_mmr: RunMmr, hostile_review: GitRepo) -> None:
    sarif = json.loads(review(run_mmr, hostile_review, "sarif"))
    uris = [loc["physicalLocation"]["artifactLocation"]
            for result in sarif["runs"][0]["results"] for loc in result["locations"]]
    assert len(uris) == len(CORPUS)
    assert all(uri.get("uriBaseId") == "%SRCROOT%" and _inside_repository(uri["uri"])
               for uri in uris), uris
    assert sum(uri["uri"] == "." for uri in uris) == 4
    lines = review(run_mmr, hostile_review, "rdjsonl").splitlines()
    paths = [json.loads(line).get("location", {}).get("path") for line in lines]
    assert all(path is None or _inside_repository(path) for path in paths), paths
    assert paths.count(None) == 4


#: Characters no format may print raw: C0 but LF/TAB, DEL, C1, bidi marks and overrides,
#: the Unicode line and paragraph separators, zero-width characters.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u180e\u200b-\u200f\u2028-\u202e"
                 "\u2060-\u2069\ufeff]")


@pytest.mark.parametrize("fmt", ["text", "markdown", "github", "rdjsonl", "sarif"])
def test_no_control_bidi_separator_or_zero_width_character_is_printed_raw(
        run_mmr: RunMmr, hostile_review: GitRepo, fmt: str) -> None:
    out = review(run_mmr, hostile_review, fmt)
    if fmt == "markdown":
        # The renderer's own word joiner after ``@``/``#`` keeps a mention from notifying.
        out = re.sub("(?<=[@#])\u2060", "", out)
    assert RAW.findall(out) == []
    assert "u2028" in out  # shown as an escape, not dropped
    if fmt in ("rdjsonl", "sarif"):  # a JSON reader still gets the reviewer's exact text
        parsed = [json.loads(line) for line in out.splitlines()] if fmt == "rdjsonl" else [
            json.loads(out)]
        assert any(CORPUS[5][1] in text for text in _strings(parsed))


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    return [s for item in value for s in _strings(item)] if isinstance(value, list) else []


def _inside_repository(path: str) -> bool:
    pure = PurePosixPath(path)
    return (not pure.is_absolute() and ".." not in pure.parts and ":" not in path
            and not path.startswith("~"))
