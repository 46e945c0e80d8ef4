"""The YAML 1.2 reader: scalar resolution, duplicates, documents, roots."""

from __future__ import annotations

import datetime
import math

import pytest

from mmr.config.yaml_io import parse_config_mapping, parse_yaml
from mmr.errors import ConfigError


@pytest.mark.parametrize(
    ("scalar", "expected"),
    [
        ("yes", "yes"), ("no", "no"), ("on", "on"), ("off", "off"), ("Yes", "Yes"), ("Y", "Y"),
        ("true", True), ("True", True), ("TRUE", True),
        ("false", False), ("False", False), ("FALSE", False),
        ("1e3", 1000.0), ("1_000", "1_000"), ("1:30", "1:30"), ("0777", 777),
        ("0o17", 15), ("0x1F", 31), ("-3", -3), ("+7", 7), ("1.5", 1.5), (".5", 0.5),
        ("~", None), ("null", None), ("NULL", None), ("", None), ("0b11", "0b11"),
        ("=", "="), ("<<", "<<"),
    ],
)
def test_scalars_resolve_as_yaml_1_2_core(scalar: str, expected: object) -> None:
    value = parse_yaml(f"k: {scalar}\n", "t.yaml")["k"]
    assert value == expected
    assert type(value) is type(expected)


def test_infinity_and_nan() -> None:
    data = parse_yaml("a: .inf\nb: -.Inf\nc: .nan\n", "t.yaml")
    assert data["a"] == math.inf
    assert data["b"] == -math.inf
    assert math.isnan(data["c"])


def test_dates_stay_dates_so_string_fields_reject_them() -> None:
    assert parse_yaml("d: 2024-01-01\n", "t.yaml")["d"] == datetime.date(2024, 1, 1)


def test_quoted_scalars_stay_strings() -> None:
    assert parse_yaml("a: 'yes'\nb: \"300\"\n", "t.yaml") == {"a": "yes", "b": "300"}


def test_duplicate_key_is_a_parse_error_with_its_line() -> None:
    with pytest.raises(ConfigError, match=r'Failed to parse p\.yaml: duplicated mapping key '
                                          r'"timeout" \(line 3, column 3\)'):
        parse_yaml("defaults:\n  timeout: 1\n  timeout: 2\n", "p.yaml")


def test_two_documents_are_a_parse_error() -> None:
    with pytest.raises(ConfigError, match=r"Failed to parse p\.yaml: expected a single document"):
        parse_yaml("a: 1\n---\nb: 2\n", "p.yaml")


def test_one_document_starting_with_marker_is_fine() -> None:
    assert parse_yaml("---\na: 1\n", "p.yaml") == {"a": 1}


def test_syntax_error_names_file_and_line() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_yaml("defaults:\n  timeout: [1, 2\n", "/x/.mmr.yaml")
    message = str(caught.value)
    assert message.startswith("Failed to parse /x/.mmr.yaml: ")
    assert "line " in message
    assert "\n" not in message


@pytest.mark.parametrize(("text", "kind"), [("- a\n- b\n", "list"), ("hello\n", "string"),
                                            ("42\n", "number")])
def test_non_mapping_root_names_the_kind(text: str, kind: str) -> None:
    with pytest.raises(ConfigError, match=rf"Invalid config in c\.yaml: expected a mapping at the "
                                          rf"top level, got {kind}"):
        parse_config_mapping(text, "c.yaml")


@pytest.mark.parametrize("text", ["", "# only a comment\n", "---\n", "\n\n"])
def test_empty_or_comment_only_file_is_an_empty_layer(text: str) -> None:
    assert parse_config_mapping(text, "c.yaml") == {}


def test_non_string_keys_become_strings_like_the_reference() -> None:
    assert parse_yaml("1: a\ntrue: b\n", "t.yaml") == {"1": "a", "true": "b"}


@pytest.mark.parametrize(("text", "detail"), [
    ("d: 2024-13-45\n", "month must be in 1..12"),
    ("x: 1\n? [a]\n: 1\n", "a mapping key must be a plain scalar (line 2, column 3)"),
    ("a: !!python/object:os.system x\n", "could not determine a constructor"),
])
def test_unusual_input_is_a_config_error_not_a_traceback(text: str, detail: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_yaml(text, "t.yaml")
    assert str(caught.value).startswith("Failed to parse t.yaml: ")
    assert detail in str(caught.value)
