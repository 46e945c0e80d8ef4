"""A hostile diff never crashes or stalls the diff readers.

The diff is the most attacker-controlled input mmr has: a pull request writes all of it.
``resolve_diff`` ends in a DiffInput or a DiffError for any bytes; splitting, walking,
redacting and path extraction accept any text (lone surrogates included) in linear time.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import event, example, given
from hypothesis import strategies as st

from mmr.diff.inputs import DiffInput, DiffRequest, count_diff_lines, resolve_diff
from mmr.errors import DiffError
from mmr.reconcile.diff_filter import touched_paths
from mmr.secrets.credentials import has_refusable_credentials, redact_diff, scan_diff
from mmr.unidiff.sections import exclude_sections, split_sections
from mmr.unidiff.walk import walk_diff
from tests.property.strategies import ANY_CHAR, ANY_TEXT, DECODED_TEXT

_ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
_DIFF_LINES = [
    "diff --git a/src/app.py b/src/app.py", "diff --git a/x b/y", 'diff --git "a/\\303\\251" b/e',
    'diff --git "a\\1" b/x', 'diff --git "a/\\q\\é" "b/\\"', "diff --cc merged.py",
    "diff --combined", "diff ", "--- a/src/app.py", "+++ b/src/app.py", "--- /dev/null",
    "+++ /dev/null", '--- "a/sp ace\\t"', "+++ b/x\t2024-01-01 00:00", "--- ", "+++ ",
    "@@ -1,3 +1,4 @@", "@@ -1 +1 @@ def f():", "@@ -0,0 +1,99999999999999999999 @@", "@@ -x @@",
    "index 123..456 100644", "new file mode 100644", "rename from old name",
    "rename to new name", 'rename from "\\777"', "copy to ", "Binary files a/x and b/x differ",
    "GIT binary patch", "\\ No newline at end of file", " context", "-removed", "+added",
    "+-- not a header", "--- inside hunk", "+token = 'ghp_" + "a" * 36 + "'",
    "+AKIAABCDEFGHIJKLMNOP", "-----BEGIN RSA PRIVATE KEY-----", "+MIIEowIBAAKCAQEA",
    "-----END RSA PRIVATE KEY-----", "+Authorization: Bearer abc", "+x-access-token:s3cr3t@host",
    '+password = "hunter2hunter2"', "+aws_secret_access_key = " + "A" * 40, "+glpat-abc",
    "+xoxb-1234567890-abc", "+AIza" + "0" * 35, "+github_pat_" + "a" * 22,
    "+" + "aws_secret_access_key" * 20, "+secret=" + "'" * 40,
]
_ENDINGS = st.sampled_from(["\n", "\n", "\n", "\r\n", "\r", ""])
DIFF_TEXT = st.one_of(
    st.lists(st.tuples(st.sampled_from(_DIFF_LINES) | ANY_TEXT, _ENDINGS), max_size=40)
    .map(lambda pairs: "".join(line + end for line, end in pairs)),
    ANY_TEXT, DECODED_TEXT,
)
PATTERNS = st.lists(
    st.sampled_from(["src", "src/*", "*.py", "**/secret*", "e", "x", "/", "", "  ./src/ ", "[",
                     "[!a]*", "?", "*"]) | st.text(ANY_CHAR, max_size=6),
    max_size=3,
)


def _line_shapes(text: str) -> list[tuple[str, str, int | None]]:
    return [(line.kind, line.prefix, line.line) for line in walk_diff(text)]


@given(text=DIFF_TEXT)
@example(text='diff --git "a\\1" b/x\n')
@example(text='diff --git "a\\ud800" b/x\n')
@example(text="diff --git " + "a " * 2000 + "\n")
def test_walking_a_diff_gives_the_text_back(text: str) -> None:
    lines = list(walk_diff(text))
    assert "".join(line.text + line.line_ending for line in lines) == text


@given(text=DIFF_TEXT, patterns=PATTERNS)
@example(text='diff --git "a\\1" b/x\n--- "a\\19x"\n+++ b/x\n', patterns=["x"])
@example(text='diff --git "a\ud800" b/x\n', patterns=["x"])
@example(text='rename from "\\é"\n', patterns=["*"])
def test_excluding_sections_keeps_whole_lines_of_the_input(text: str, patterns: list[str]) -> None:
    kept, dropped = exclude_sections(text, patterns)
    assert isinstance(kept, str)
    assert all(isinstance(path, str) for path in dropped)
    if not dropped:
        assert kept == text
    else:
        assert len(kept) < len(text)
        # What is left is the input with some whole lines removed, in order.
        remaining = iter(text.splitlines(keepends=True))
        assert all(line in remaining for line in kept.splitlines(keepends=True))
    preamble, sections = split_sections(text)
    assert preamble + "".join("".join(s.lines) for s in sections) == text


@given(text=DIFF_TEXT)
@example(text="+" + "aws_secret_access_key" * 500 + "\n")
def test_redaction_keeps_the_diff_shape_and_leaves_nothing_to_redact(text: str) -> None:
    redacted, hits = redact_diff(text)
    assert scan_diff(text) == hits
    assert count_diff_lines(redacted) == count_diff_lines(text)
    assert redacted.count("\n") == text.count("\n")
    # Prefixes, hunk structure and line numbers survive: reviewers cite the same lines.
    assert _line_shapes(redacted) == _line_shapes(text)
    assert redact_diff(redacted) == (redacted, [])
    if not hits:
        assert redacted == text
    assert isinstance(has_refusable_credentials(text), bool)


@given(text=DIFF_TEXT)
@example(text='diff --git "a\ud800" b/x\n')
@example(text="diff --git " + "a " * 5000 + "\n")
def test_touched_paths_are_clean_names(text: str) -> None:
    paths = touched_paths(text)
    assert isinstance(paths, frozenset)
    assert "" not in paths
    assert "/dev/null" not in paths
    assert all(isinstance(path, str) and not path.startswith("./") for path in paths)


@given(data=st.binary(max_size=400) | DIFF_TEXT.map(lambda t: t.encode("utf-8", "surrogatepass")),
       patterns=PATTERNS)
def test_a_diff_file_of_any_bytes_resolves_or_is_a_diff_error(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, patterns: list[str]
) -> None:
    base = tmp_path_factory.mktemp("diff")
    (base / "in.diff").write_bytes(data)
    try:
        diff = resolve_diff(DiffRequest(diff="in.diff"), base, diff_exclude=patterns)
    except DiffError as exc:
        assert str(exc).strip()
        event("DiffError")
        return
    event("DiffInput, files excluded" if diff.excluded_files else "DiffInput")
    assert isinstance(diff, DiffInput)
    assert diff.line_count == count_diff_lines(diff.text)
    assert "\ufffd" in diff.text or diff.text.encode() in data or diff.excluded_files
    assert sorted(p.name for p in base.iterdir()) == ["in.diff"]  # nothing written


@pytest.mark.parametrize("name", ["missing.diff", "a\x00b", "", ".", "../../etc/shadow-nope",
                                  "x" * 5000])
def test_an_unreadable_diff_path_is_a_diff_error(tmp_path: Path, name: str) -> None:
    with pytest.raises(DiffError):
        resolve_diff(DiffRequest(diff=name), tmp_path)


# ------------------------------------------------------------ bounded time on 20 MB


def _big_diff(size: int) -> str:
    body = "".join(f" context line {j} with ordinary code\n" for j in range(20))
    body += "+token = 'ghp_" + "a" * 36 + "'\n" + "".join(
        f"-old {j}\n+new {j} AKIAABCDEFGHIJKLMNOP\n" for j in range(20))
    parts, total, index = [], 0, 0
    while total < size:
        part = (f"diff --git a/src/f{index}.py b/src/f{index}.py\n--- a/src/f{index}.py\n"
                f"+++ b/src/f{index}.py\n@@ -1,40 +1,41 @@\n{body}")
        parts.append(part)
        total += len(part)
        index += 1
    return "".join(parts)


@pytest.mark.slow
def test_a_20_mb_diff_is_read_filtered_and_redacted_in_bounded_time(tmp_path: Path) -> None:
    text = _big_diff(20 * 2**20)
    (tmp_path / "big.diff").write_text(text, newline="\r\n")  # CRLF as well
    start = time.perf_counter()
    diff = resolve_diff(DiffRequest(diff="big.diff"), tmp_path, diff_exclude=["src/f1*"])
    redacted, hits = redact_diff(diff.text)
    paths = touched_paths(diff.text)
    elapsed = time.perf_counter() - start
    assert diff.excluded_files and hits and paths
    assert count_diff_lines(redacted) == diff.line_count
    assert elapsed < 60, f"20 MB diff took {elapsed:.1f}s"


#: One long line of each shape that once made a reader quadratic, or near it.
LONG_LINES = {
    "repeated aws_secret_access_key": "+" + "aws_secret_access_key" * 50_000,
    "spaces in a diff --git header": "diff --git " + "a " * 200_000,
    "password assignments": "+" + 'password = "' * 80_000,
    "unclosed quoted header": 'diff --git "' + "\\1" * 200_000,
    "one 2 MB added line": "+" + "x" * 2_000_000,
    "BEGIN without END": "+BEGIN " + "A " * 500_000,
}


@pytest.mark.parametrize("case", list(LONG_LINES))
def test_long_hostile_lines_take_linear_time(case: str) -> None:
    text = LONG_LINES[case] + "\n"
    start = time.perf_counter()
    redact_diff(text)
    touched_paths(text)
    exclude_sections(text, ["a"])
    sum(1 for _ in walk_diff(text))
    elapsed = time.perf_counter() - start
    assert elapsed < 10, f"{case} took {elapsed:.1f}s"


# ------------------------------------------------------------ regressions (fixes pinned)


def test_a_short_octal_escape_in_a_quoted_header_is_read_not_raised() -> None:
    """Fix: ``"a\\1"`` made ``int('1"', 8)`` raise ValueError when diff_exclude was set."""
    text = 'diff --git "a\\1" b/x\n--- "a\\1"\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n'
    assert exclude_sections(text, ["a1"]) == ("", ["b/x"])  # not octal: a literal 1
    assert exclude_sections(text, ["nothing"]) == (text, [])


def test_a_lone_surrogate_in_a_quoted_path_is_read_as_a_replacement_character() -> None:
    """Fix: a surrogate outside the surrogateescape range raised UnicodeEncodeError."""
    text = 'diff --git "a/\ud800" "b/\ud800"\n'
    assert touched_paths(text) == frozenset({"\ufffd"})
    assert exclude_sections(text, ["\ufffd"]) == ("", ["\ufffd"])


def test_repeated_aws_secret_names_are_linear() -> None:
    """Fix: the aws-secret-key pattern backtracked quadratically (40 KB took 8 s)."""
    start = time.perf_counter()
    redact_diff("+" + "aws_secret_access_key" * 20_000 + "\n")
    assert time.perf_counter() - start < 2.0
    line = "+AWS_SECRET_ACCESS_KEY = " + "A" * 40 + "\n"
    assert redact_diff(line)[0] == "+AWS_SECRET_ACCESS_KEY = <redacted:aws-secret-key>\n"


def test_a_long_git_header_with_spaces_is_linear() -> None:
    """Fix: every space of a ``diff --git`` line was tried as the split (quadratic memory)."""
    start = time.perf_counter()
    assert touched_paths("diff --git " + "a " * 100_000 + "\n") == frozenset()
    assert time.perf_counter() - start < 2.0
    assert touched_paths("diff --git a/my file b/my file\n") == frozenset({"my file"})
