"""Pure parts of diff input handling: sections, pathspecs, line counts, the run budget."""

from __future__ import annotations

import pytest

from mmr.diff.inputs import EMPTY_DIFF_MESSAGE, DiffInput, check_reviewable, count_diff_lines
from mmr.diff.proposed import ProposedChanges
from mmr.errors import DiffError
from mmr.unidiff.sections import (
    exclude_sections,
    pathspec_matches,
    split_sections,
    unquote,
)

GIT_DIFF = """\
diff --git a/src/a.py b/src/a.py
index 1..2 100644
--- a/src/a.py
+++ b/src/a.py
@@ -1,3 +1,3 @@
 keep
--- a removed line that looks like a header
+++ an added line that looks like a header
 keep
diff --git a/secrets/key.txt b/secrets/key.txt
deleted file mode 100644
--- a/secrets/key.txt
+++ /dev/null
@@ -1 +0,0 @@
-hunter2
diff --git a/img.png b/img.png
Binary files a/img.png and b/img.png differ
diff --git a/old name.txt b/new name.txt
similarity index 100%
rename from old name.txt
rename to new name.txt
"""

PLAIN_DIFF = """\
--- old/app.c\t2024-01-01 00:00:00
+++ new/app.c\t2024-01-02 00:00:00
@@ -1 +1 @@
--- not a header: a removed SQL comment
+++ not a header either
--- old/id.key\t2024-01-01 00:00:00
+++ new/id.key\t2024-01-02 00:00:00
@@ -1 +1 @@
-a
+b
"""


def test_git_diff_sections_and_paths() -> None:
    preamble, sections = split_sections(GIT_DIFF)
    assert preamble == ""
    assert [s.paths for s in sections] == [
        ["src/a.py"], ["secrets/key.txt"], ["img.png"], ["old name.txt", "new name.txt"]]
    assert [s.display_path for s in sections] == [
        "src/a.py", "secrets/key.txt", "img.png", "new name.txt"]
    assert "".join(line for s in sections for line in s.lines) == GIT_DIFF


def test_plain_diff_sections_count_hunks() -> None:
    _, sections = split_sections(PLAIN_DIFF)
    assert len(sections) == 2
    assert sections[0].paths == ["old/app.c", "app.c", "new/app.c"]
    assert "--- not a header" in "".join(sections[0].lines)


def test_preamble_is_kept() -> None:
    text = "From abc Mon Sep 17 00:00:00 2001\nSubject: x\n\n" + GIT_DIFF
    kept, dropped = exclude_sections(text, ["secrets"])
    assert kept.startswith("From abc") and dropped == ["secrets/key.txt"]


def test_no_prefix_and_quoted_paths() -> None:
    no_prefix = "diff --git src/x.py src/x.py\n--- src/x.py\n+++ src/x.py\n@@ -1 +1 @@\n-a\n+b\n"
    assert split_sections(no_prefix)[1][0].paths == ["src/x.py"]
    quoted = ('diff --git "a/caf\\303\\251 \\"q\\".txt" "b/caf\\303\\251 \\"q\\".txt"\n'
              "Binary files differ\n")
    assert split_sections(quoted)[1][0].paths == ['café "q".txt']
    assert unquote('"a\\tb\\\\c" rest') == ("a\tb\\c", " rest")


def test_combined_diff_path() -> None:
    merge = "diff --cc conf/.mmr.yaml\nindex 1,2..3\n--- a/conf/.mmr.yaml\n+++ b/conf/.mmr.yaml\n"
    assert split_sections(merge)[1][0].paths == ["conf/.mmr.yaml"]


def test_malformed_hunk_counts_do_not_swallow_the_next_file() -> None:
    text = ("diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1,9 +1,9 @@\n-x\n+y\n"
            "diff --git a/b b/b\n--- a/b\n+++ b/b\n@@ -1 +1 @@\n-x\n+y\n")
    assert [s.paths for s in split_sections(text)[1]] == [["a"], ["b"]]


@pytest.mark.parametrize("pattern,path,expected", [
    ("secrets/**", "secrets/a/b.txt", True),
    ("secrets/**", "app/secrets/a", False),
    ("secrets", "secrets/a.txt", True),
    ("secrets", "secretsx/a.txt", False),
    ("secrets/", "secrets/a.txt", True),
    ("*.pem", "deep/dir/server.pem", True),
    ("*.pem", "server.pem.bak", False),
    ("*secret*", "config/my_secret.yml", True),
    ("*secret*", "docs/keyboard.md", False),
    ("./src/*.py", "src/a/b.py", True),
    ("/local_secrets", "local_secrets/x", True),
    ("", "anything", False),
    ("SECRETS", "secrets/a", False),
])
def test_pathspec_matches(pattern: str, path: str, expected: bool) -> None:
    assert pathspec_matches(pattern, path) is expected


def test_exclude_sections_by_old_or_new_path() -> None:
    kept, dropped = exclude_sections(GIT_DIFF, ["secrets/**", "old name.txt"])
    assert dropped == ["secrets/key.txt", "new name.txt"]
    assert "hunter2" not in kept and "rename from" not in kept
    assert "src/a.py" in kept and "img.png" in kept


def test_exclude_sections_plain_diff_matches_without_its_root() -> None:
    kept, dropped = exclude_sections(PLAIN_DIFF, ["*.key"])
    assert dropped == ["new/id.key"]
    assert kept == PLAIN_DIFF[:PLAIN_DIFF.index("--- old/id.key")]


def test_exclude_nothing_returns_the_same_text() -> None:
    assert exclude_sections(GIT_DIFF, []) == (GIT_DIFF, [])
    assert exclude_sections(GIT_DIFF, ["nomatch/**"])[0] is GIT_DIFF


@pytest.mark.parametrize("text,expected", [
    ("", 0), ("a\n", 1), ("a\nb", 2), ("a\r\nb\r\n", 2), ("a\fb\rc\u2028d\n", 1),
])
def test_count_diff_lines_like_wc(text: str, expected: int) -> None:
    assert count_diff_lines(text) == expected


def _diff(text: str, excluded: tuple[str, ...] = ()) -> DiffInput:
    return DiffInput(text=text, source="diff",
                     excluded_files=excluded, line_count=count_diff_lines(text),
                     proposed=ProposedChanges())


def test_check_reviewable() -> None:
    check_reviewable(_diff("a\nb\n"), None)
    check_reviewable(_diff("a\nb\n"), 2)
    with pytest.raises(DiffError, match=r"^diff too large: 2 lines > 1; raise --max-diff-lines "
                                        r"or defaults.max_diff_lines$"):
        check_reviewable(_diff("a\nb\n"), 1)
    with pytest.raises(DiffError) as caught:
        check_reviewable(_diff(" \n", ("secrets/a",)), None)
    assert str(caught.value) == EMPTY_DIFF_MESSAGE


def test_exclusion_notice() -> None:
    assert _diff("x\n").exclusion_notice is None
    assert _diff("x\n", ("a", "b")).exclusion_notice == (
        "[mmr] excluded 2 file(s) from the diff by diff_exclude")
