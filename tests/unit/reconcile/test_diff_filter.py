"""Which paths a diff touches, and dropping findings about other files."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from mmr.reconcile.diff_filter import names_touched_path, touched_paths


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True,
                          check=True).stdout


@pytest.fixture
def real_diff(tmp_path: Path) -> str:
    """A staged git diff with edits (one to a name with a space: git appends a tab), a pure
    rename with spaces, a deletion, a new non-ASCII file (git quotes it), a nested file."""
    _git(tmp_path, "init", "-q", "-b", "main")
    files = {"src/app.ts": "one\ntwo\n", "old name.txt": "same\n" * 20, "del.txt": "bye\n",
             "keep.txt": "untouched\n", "sp ace.txt": "a\n"}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "-c", "commit.gpgsign=false", "commit", "-q", "-m", "base")
    (tmp_path / "src/app.ts").write_text("one\nTWO\n")
    (tmp_path / "sp ace.txt").write_text("a\nb\n")
    _git(tmp_path, "mv", "old name.txt", "new name.txt")
    (tmp_path / "del.txt").unlink()
    (tmp_path / "ä.txt").write_text("neu\n")
    (tmp_path / "nested/dir").mkdir(parents=True)
    (tmp_path / "nested/dir/file.py").write_text("x = 1\n")
    _git(tmp_path, "add", "-A")
    return _git(tmp_path, "diff", "--cached", "-M")


def test_paths_from_a_real_git_diff(real_diff: str) -> None:
    assert '"b/\\303\\244.txt"' in real_diff  # git quoted the non-ASCII name
    assert "+++ b/sp ace.txt\t" in real_diff
    touched = touched_paths(real_diff)
    assert touched == frozenset({
        "src/app.ts", "old name.txt", "new name.txt", "del.txt", "ä.txt", "nested/dir/file.py",
        "sp ace.txt",
    })
    assert names_touched_path("sp ace.txt:2", touched)
    assert names_touched_path("ä.txt:1", touched)


def test_header_lines_are_read_literally_and_normalised() -> None:
    diff = (
        "--- a/./src//x.ts\t2024-01-01 00:00:00\r\n"
        "+++ b/src/x.ts\r\n"
        "--- /dev/null\n"
        "+++ b/new.ts\n"
        "diff --git a/with space.ts b/with space.ts\n"
        "diff --git a/old.ts b/renamed.ts\n"
    )
    assert touched_paths(diff) == frozenset(
        {"src/x.ts", "new.ts", "with space.ts", "old.ts", "renamed.ts"})


def test_blank_or_headerless_diff_touches_nothing() -> None:
    assert touched_paths("") == frozenset()
    assert touched_paths("just some text\n") == frozenset()


@pytest.mark.parametrize(("location", "kept"), [
    ("x.ts:2", True),
    ("./x.ts", True),
    ("x.ts", True),
    ("  x.ts:3:4  ", True),
    ("src//deep.ts:9", True),
    ("x.ts:1:2:3", True),              # the reference's rule: text before the first colon
    ("x.ts (line 2)", True),           # FIX: prose line spans
    ("x.ts (Line 2)", True),
    ("b/x.ts:5", True),                # FIX: a/ or b/ prefixes
    ("a/src/deep.ts", True),
    ("other.ts:2", False),
    ("unknown", False),
    ("x.ts#L10", False),
    ("X.ts:2", False),                 # paths are case-sensitive
    ("docs/x.md#anchor::lens::id", False),
    ("C:\\repo\\x.ts", False),
    ("", False),
])
def test_location_matching(location: str, kept: bool) -> None:
    assert names_touched_path(location, {"x.ts", "src/deep.ts"}) is kept
