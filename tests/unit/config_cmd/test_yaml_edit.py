"""The round-trip editor and scalar coercion as pure functions."""

from __future__ import annotations

import textwrap

import pytest

from mmr.config.yaml_io import parse_yaml
from mmr.config_edit.writer import coerce_scalar
from mmr.config_edit.yaml_edit import EditableConfig, YamlEditError, typed
from mmr.config_edit.yaml_style import guess_indents


def edited(text: str, *, set_: dict[str, object] | None = None,
           delete: tuple[str, ...] = ()) -> str:
    document = EditableConfig.parse(textwrap.dedent(text), "test.yaml")
    for dotted, value in (set_ or {}).items():
        document.set(dotted.split("."), value)
    for dotted in delete:
        assert document.delete(dotted.split("."))
    return document.dump()


@pytest.mark.parametrize(("text", "value"), [
    ("true", True), ("false", False), ("True", "True"), ("600", 600), ("-5", -5),
    ("1e3", 1000), ("600.0", 600), ("5.", 5), (".5", 0.5), ("+7", 7), (" 42 ", 42),
    ("0x10", "0x10"), ("0o7", "0o7"), ("Infinity", "Infinity"), ("1_000", "1_000"),
    ("NaN", "NaN"), ("P1", "P1"), ("", ""), (" ", " "), ("yes", "yes"),
])
def test_coerce_scalar(text: str, value: object):
    result = coerce_scalar(["defaults", "x"], text)
    assert result == value and type(result) is type(value)


def test_coerce_keeps_env_and_header_values_strings():
    assert coerce_scalar(["channels", "codex", "env", "NO_BROWSER"], "true") == "true"
    assert coerce_scalar(["channels", "x", "headers", "X-N"], "5") == "5"
    assert coerce_scalar(["channels", "x", "env"], "5") == 5  # `env` itself is the leaf


def test_huge_exponents_stay_floats():
    assert coerce_scalar(["defaults", "timeout"], "1e999") == float("inf")


@pytest.mark.parametrize("word", ["true", "yes", "no", "on", "off", "null", "~", "300", "1:30",
                                  "2024-01-01", "0777", "1e3", ".inf", "Yes", "OFF"])
def test_strings_that_read_as_another_type_are_double_quoted(word: str):
    text = edited("version: 1\n", set_={"env.K": word})
    assert f'K: "{word}"' in text
    assert parse_yaml(text, "x")["env"]["K"] == word


def test_plain_strings_stay_plain():
    assert typed("claude -p") == "claude -p"
    assert "fix_threshold: P1\n" in edited("version: 1\n", set_={"defaults.fix_threshold": "P1"})


def test_new_branches_are_block_style_after_trailing_comments():
    text = edited("""\
        channels:
          codex:
            enabled: true  # keep me
          # before grok
          grok:
            timeout: 10
        # trailing
        """, set_={"channels.codex.env.NO_BROWSER": "1", "channels.new.enabled": False})
    assert text == (
        "channels:\n"
        "  codex:\n"
        "    enabled: true  # keep me\n"
        "    env:\n"
        '      NO_BROWSER: "1"\n'
        "  # before grok\n"
        "  grok:\n"
        "    timeout: 10\n"
        "  new:\n"
        "    enabled: false\n"
        "# trailing\n"
    )


def test_an_empty_flow_mapping_grows_into_a_block():
    assert edited("defaults: {}\n", set_={"defaults.timeout": 5}) == "defaults:\n  timeout: 5\n"


def test_delete_takes_the_keys_own_comments_and_keeps_the_rest():
    text = edited("""\
        channels:
          codex:

            # a

            # b
            enabled: true  # eol
            # c
            x: 1
          # before grok
          grok:
            y: 1
        """, delete=("channels.codex.enabled",))
    assert text == ("channels:\n  codex:\n\n    # a\n\n    # c\n    x: 1\n"
                    "  # before grok\n  grok:\n    y: 1\n")


def test_delete_prunes_empty_parents_and_keeps_the_closing_comment():
    text = edited("""\
        # head
        version: 1
        # about defaults
        defaults:
          timeout: 5
        # tail
        """, delete=("defaults.timeout",))
    assert text == "# head\nversion: 1\n# tail\n"


def test_delete_of_the_first_key_keeps_the_file_header():
    assert edited("# head\nversion: 1\ndefaults:\n  timeout: 5\n", delete=("version",)) == (
        "# head\ndefaults:\n  timeout: 5\n")


def test_delete_of_a_missing_key_changes_nothing():
    document = EditableConfig.parse("defaults:\n  timeout: 5\n", "x")
    assert document.delete(["defaults", "fix_threshold"]) is False
    assert document.delete(["defaults", "timeout", "deeper"]) is False
    assert document.dump() == "defaults:\n  timeout: 5\n"


def test_replacing_a_value_keeps_the_gap_before_its_comment():
    assert edited("a: true   # note\n", set_={"a": False}) == "a: false   # note\n"
    assert edited("a: P2  # note\n", set_={"a": "P1"}) == "a: P1  # note\n"


@pytest.mark.parametrize(("text", "message"), [
    ("a: [1\n", "cannot edit test.yaml: it has YAML syntax errors ("),
    ("a: 1\na: 2\n", "cannot edit test.yaml: it has YAML syntax errors ("),
    ("a: 1\n---\nb: 2\n", "multi-document YAML not supported: test.yaml"),
    ("- a\n- b\n", "cannot edit test.yaml: expected a mapping at the top level, got list"),
])
def test_files_that_cannot_be_edited(text: str, message: str):
    with pytest.raises(YamlEditError) as caught:
        EditableConfig.parse(text, "test.yaml")
    assert str(caught.value).startswith(message)


def test_setting_below_a_scalar_is_refused():
    document = EditableConfig.parse("defaults:\n  timeout: 5\n", "x")
    with pytest.raises(YamlEditError, match=r"defaults\.timeout is not a mapping"):
        document.set(["defaults", "timeout", "x"], 1)


def test_comment_only_and_empty_files_are_editable():
    assert edited("# just a note\n", set_={"version": 1}) == "# just a note\nversion: 1\n"
    assert edited("", set_={"version": 1}) == "version: 1\n"


@pytest.mark.parametrize(("text", "indents"), [
    ("a:\n  b: 1\n", (2, 4, 2)),
    ("a:\n    b: 1\n", (4, 6, 4)),
    ("a:\n- x\n", (2, 2, 0)),
    ("a:\n  b:\n    - x\n", (2, 4, 2)),
    ("version: 1\n", (2, 4, 2)),
])
def test_guess_indents(text: str, indents: tuple[int, int, int]):
    assert guess_indents(text) == indents


def test_indentation_of_the_file_is_kept():
    text = "defaults:\n    timeout: 5\nlist:\n- a\n"
    assert edited(text, set_={"defaults.parallel": False}) == (
        "defaults:\n    timeout: 5\n    parallel: false\nlist:\n- a\n")
