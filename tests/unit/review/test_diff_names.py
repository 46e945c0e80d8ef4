"""Header names shared by the diff splitter and the findings filter."""

from __future__ import annotations

import pytest

from mmr.reconcile import diff_filter
from mmr.unidiff import sections as diff_sections
from mmr.unidiff.names import git_header_names, header_name, unquote


def test_unquote_decodes_octal_bytes_escapes_and_returns_the_rest() -> None:
    assert unquote('"caf\\303\\251 \\"q\\".txt"\tx') == ('café "q".txt', "\tx")
    assert unquote('"\\q\\8"') == ("q8", "")  # an unknown escape is the character itself
    assert unquote('"\\377"') == ("\ufffd", "")  # not UTF-8
    assert unquote('"open') == ("open", "")  # unterminated: runs to the end


def test_header_name_cuts_a_plain_diffs_timestamp_but_not_a_quoted_tab() -> None:
    assert header_name("a/app.c\t2024-01-01 00:00:00") == "a/app.c"
    assert header_name('"a/t\\tb"\t2024') == "a/t\tb"
    assert header_name("a/with space") == "a/with space"


def test_both_readers_decode_a_quoted_plain_header_alike() -> None:
    diff = '--- "a/caf\\303\\251"\t2024\n+++ "b/caf\\303\\251"\t2024\n@@ -1 +1 @@\n-a\n+b\n'
    assert diff_filter.touched_paths(diff) == {"café"}
    assert diff_sections.split_sections(diff)[1][0].paths == ["a/café", "café", "b/café"]


@pytest.mark.parametrize(("rest", "names"), [
    ("a/x y.txt b/x y.txt", ("a/x y.txt", "b/x y.txt")),
    ("i/x y.txt w/x y.txt", ("i/x y.txt", "w/x y.txt")),  # diff.mnemonicPrefix
    ("x y.txt x y.txt", ("x y.txt", "x y.txt")),  # --no-prefix
    ("d/x e/x", ("d/x", "e/x")),  # --no-prefix rename across one-letter directories
    ("x y b/x y", ("x y", "b/x y")),  # one side without its prefix
    ("a/old name b/new name", ("a/old name", "b/new name")),  # a rename: the one " b/"
    ("a/x b/y b/z", None),  # several " b/": left to the rename lines
    ('"a/t\\tb" "b/t\\tb"', ("a/t\tb", "b/t\tb")),
    ('a/plain "b/caf\\303\\251"', ("a/plain", "b/café")),
])
def test_git_header_names_splits_each_header_shape(rest: str,
                                                   names: tuple[str, str] | None) -> None:
    assert git_header_names(rest) == names


def test_both_readers_take_a_mnemonic_prefix_header_alike() -> None:
    diff = "diff --git i/x y.png w/x y.png\nBinary files i/x y.png and w/x y.png differ\n"
    assert diff_sections.split_sections(diff)[1][0].paths == ["x y.png"]
    assert {"i/x y.png", "w/x y.png"} <= diff_filter.touched_paths(diff)


def test_an_ambiguous_rename_header_is_named_by_its_rename_lines() -> None:
    diff = ("diff --git a/x b/y b/z b/x b/y b/z\nsimilarity index 100%\n"
            "rename from x b/y b/z\nrename to x b/y\n")
    assert diff_sections.split_sections(diff)[1][0].paths == ["x b/y b/z", "x b/y"]
    assert diff_filter.touched_paths(diff) == {"x b/y b/z", "x b/y"}
