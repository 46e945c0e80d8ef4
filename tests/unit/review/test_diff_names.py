"""Header names shared by the diff splitter and the findings filter."""

from __future__ import annotations

from mmr.reconcile import diff_filter
from mmr.unidiff import sections as diff_sections
from mmr.unidiff.names import header_name, unquote


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
