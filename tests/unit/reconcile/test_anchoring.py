"""Sorting findings into in the diff / outside the diff / unanchored (issue 13)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mmr.models import Finding
from mmr.reconcile.anchoring import DiffScope, place_finding, sort_findings, split_location

DIFF = """\
diff --git a/calc.py b/calc.py
--- a/calc.py
+++ b/calc.py
@@ -1,3 +1,3 @@
 a = 1
-b = 2
+b = 2 / n
 c = 3
"""


@pytest.fixture
def scope(tmp_path: Path) -> DiffScope:
    (tmp_path / "calc.py").write_text("a = 1\nb = 2 / n\nc = 3\n")
    (tmp_path / "ledger.py").write_text("x = 1\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\n")
    return DiffScope.from_diff(DIFF, tmp_path)


def f(location: str) -> Finding:
    return Finding(severity="P1", location=location, description="d")


@pytest.mark.parametrize(("location", "expected"), [
    ("calc.py:2", ("calc.py", 2)), ("calc.py#L2", ("calc.py", 2)),
    ("calc.py#L2-L4", ("calc.py", 2)), ("calc.py (line 7)", ("calc.py", 7)),
    ("calc.py, line 3", ("calc.py", 3)), ("calc.py:L9", ("calc.py", 9)),
    ("`calc.py`:4", ("calc.py", 4)), ("unknown", ("unknown", None)),
    ("calc.py:99999999999", ("calc.py", 10**10)),
])
def test_split_location(location: str, expected: tuple[str, int | None]) -> None:
    assert split_location(location) == expected


@pytest.mark.parametrize(("location", "place", "stored"), [
    ("calc.py:2", "in_diff", "calc.py:2"),           # the reference rule, unchanged
    ("./calc.py:2", "in_diff", "./calc.py:2"),
    ("b/calc.py (line 2)", "in_diff", "b/calc.py (line 2)"),
    ("calc.py#L2", "in_diff", "calc.py:2"),          # normalised onto the diff
    ("calc.py, line 3", "in_diff", "calc.py:3"),
    ("ledger.py:1", "outside_diff", "ledger.py:1"),
    ("docs/a.md", "outside_diff", "docs/a.md"),
    ("unknown", "unanchored", "unknown"),
    ("README.md § Install", "unanchored", "README.md § Install"),
    ("src/calc.py:2", "unanchored", "src/calc.py:2"),  # a prefix the repo does not have
    ("calc.py:5638791", "unanchored", "calc.py:5638791"),
    ("ledger.py:40", "unanchored", "ledger.py:40"),
    ("../outside.py:1", "unanchored", "../outside.py:1"),
    ("/etc/passwd:1", "unanchored", "/etc/passwd:1"),
])
def test_place(scope: DiffScope, location: str, place: str, stored: str) -> None:
    got_place, finding = place_finding(f(location), scope)
    assert (got_place, finding.location) == (place, stored)


def test_an_absolute_path_inside_the_repository_is_made_relative(scope: DiffScope) -> None:
    assert scope.repo_root is not None
    place, finding = place_finding(f(f"{scope.repo_root.resolve()}/calc.py:2"), scope)
    assert (place, finding.location) == ("in_diff", "calc.py:2")


def test_a_line_within_the_hunks_counts_even_when_the_file_is_gone(tmp_path: Path) -> None:
    scope = DiffScope.from_diff(DIFF, tmp_path)  # calc.py not in the work tree
    assert place_finding(f("calc.py:3"), scope)[0] == "in_diff"
    assert place_finding(f("calc.py:400"), scope)[0] == "in_diff"  # cannot tell: kept


def test_every_finding_lands_in_exactly_one_place(scope: DiffScope) -> None:
    findings = [f("calc.py:2"), f("ledger.py:1"), f("unknown")]
    placed = sort_findings(findings, scope)
    assert (len(placed.in_diff), len(placed.outside_diff), len(placed.unanchored)) == (1, 1, 1)
    assert sort_findings(findings, None).in_diff == findings  # no diff: the reference


def test_a_hostile_location_is_split_in_linear_time() -> None:
    # Quadratic backtracking over 200k characters would take minutes; the tail window
    # bounds the search (no timing assertion: the test would simply not finish).
    for hostile in (":1" * 100_000 + "x", " " * 200_000 + "x", "a.py" + "(line 1" * 30_000):
        assert split_location(hostile)[1] is None
    assert split_location("x" * 100_000 + ".py:7") == ("x" * 100_000 + ".py", 7)
