"""Findings carried across the pushes of a pull request, and the record they come from."""

from __future__ import annotations

from pathlib import Path

from mmr.reconcile.carry import carry, parse_changes, shift
from mmr.store.pulls import PullRecord, read_stored, record_path, write_stored
from tests.unit.reconcile.ack_helpers import reconciled

ZERO_CONTEXT = """\
diff --git a/src/a.py b/src/a.py
index 1111111..2222222 100644
--- a/src/a.py
+++ b/src/a.py
@@ -3,0 +4,2 @@ def f():
+import os
+import sys
@@ -10,2 +12 @@ def g():
--- a removed line that looks like a header
-x = 2
+y = 2
diff --git a/src/new.py b/src/new.py
new file mode 100644
--- /dev/null
+++ b/src/new.py
@@ -0,0 +1 @@
+z = 1
"""


def test_parse_changes_reads_hunks_not_removed_lines_that_look_like_headers() -> None:
    assert parse_changes(ZERO_CONTEXT) == {"src/a.py": [(3, 0, 4, 2), (10, 2, 12, 1)],
                                           "src/new.py": [(0, 0, 1, 1)]}


def test_parse_changes_splits_lines_at_newlines_only() -> None:
    # A form feed inside a removed line is not a line break: read as one, the hunk would
    # end early and its "--- x"/"+++ y" lines would move the next hunk to file x.
    diff = ("--- a/src/a.py\n+++ b/src/a.py\n@@ -1,2 +1 @@\n-a\f-b\f-c\n--- x\n+++ y\n"
            "@@ -10 +9 @@\n-old\n+new\n")
    assert parse_changes(diff) == {"src/a.py": [(1, 2, 1, 1), (10, 1, 9, 1)]}


def test_shift_moves_untouched_lines_and_refuses_touched_ones() -> None:
    hunks = parse_changes(ZERO_CONTEXT)["src/a.py"]
    assert shift((1, 3), hunks) == 0          # above every hunk; an insertion after its end
    assert shift((3, 3), hunks) == 0          # lines inserted after it do not move it
    assert shift((5, 9), hunks) == 2          # below the insertion
    assert shift((2, 4), hunks) is None       # lines inserted inside the range
    assert shift((11, 11), hunks) is None     # a changed line
    assert shift((20, 22), hunks) == 1        # two lines became one, two were inserted
    assert shift(None, hunks) is None and shift(None, []) == 0


def test_carry_sorts_previous_findings_into_open_and_fixed() -> None:
    same = reconciled("src/a.py:1", "Shadowed builtin name in the helper")
    reworded = reconciled("src/a.py:11", "The loop bound is off by one and skips the last row")
    untouched = reconciled("src/a.py:20-21", "Unclosed file handle leaks", severity="P0")
    touched = reconciled("src/a.py:10", "Magic constant 2 in the retry delay")
    previous = [same, reworded, untouched, touched]
    current = [reconciled("src/a.py:1", "Shadowed builtin name in the helper"),
               reconciled("src/a.py:12", "Off by one: the loop bound skips the last row"),
               reconciled("src/b.py:4", "A brand new problem")]
    current[0].generated_id, current[1].generated_id = "F-001", "F-002"
    current[2].generated_id = "F-003"
    found, fixed = carry(current, previous, parse_changes(ZERO_CONTEXT))
    assert [(f.location, f.state) for f in found] == [
        ("src/a.py:1", "open"), ("src/a.py:12", "open"), ("src/b.py:4", "new"),
        ("src/a.py:21-22", "open")]
    assert found[3].generated_id == "F-004" and found[3].severity == "P0"
    assert [(f.location, f.state) for f in fixed] == [("src/a.py:10", "fixed")]


def test_without_the_old_head_every_finding_not_reported_again_is_fixed() -> None:
    found, fixed = carry([], [reconciled("src/a.py:20", "Unclosed file handle leaks")], None)
    assert (found, [f.state for f in fixed]) == ([], ["fixed"])


def test_the_record_reads_back_and_refuses_hostile_names(tmp_path: Path) -> None:
    assert record_path(tmp_path, "acme/widgets", 3) == tmp_path / "pulls/acme/widgets/3.json"
    for hostile in ("../etc", "acme/..", "a/b/c", "acme", "-x/y", "acme/.git/../x"):
        assert record_path(tmp_path, hostile, 3) is None, hostile
    finding = reconciled("src/a.py:1", "Shadowed builtin name")
    path = tmp_path / "pulls/acme/widgets/3.json"
    write_stored(path, PullRecord(head="a" * 40, job_id="mmr-0123456789ab", findings=[finding]))
    assert read_stored(PullRecord, path) == PullRecord(
        head="a" * 40, job_id="mmr-0123456789ab", findings=[finding])
    path.write_text('{"head": "x", "job_id": "y", "findings": [{"severity": "P9"}]}')
    assert read_stored(PullRecord, path) is None  # the next review is a full one
    path.write_text("{not json")
    assert read_stored(PullRecord, path) is None
