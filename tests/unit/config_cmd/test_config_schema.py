"""``mmr config schema``: generated from the models, shipped current, true to the loader.

The last test checks the schema against every config the test suite writes: each one the
loader accepts validates, and each one the schema rejects the loader rejects too.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from mmr.config.defaults import BUILTIN_CHANNEL_ORDER, builtin_layer
from mmr.config.issues import ConfigValidationError
from mmr.config.loaded import ProjectText
from mmr.config.loader import load_config
from mmr.config.schema import Defaults, MmrConfig
from mmr.config.yaml_io import parse_config_mapping
from mmr.config_edit.init_template import EXAMPLE_IDS, render_init_config
from mmr.config_edit.json_schema import config_file_schema, render_schema
from mmr.errors import ConfigError
from tests.integration.config_cmd.test_init import uncomment_examples

REPO = Path(__file__).resolve().parents[3]
SHIPPED = REPO / "docs" / "mmr.schema.json"
REGENERATE = "regenerate with: mmr config schema > docs/mmr.schema.json"


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    schema = config_file_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def errors(validator: jsonschema.Draft202012Validator, data: Any) -> list[str]:
    return [f"{'.'.join(map(str, e.absolute_path))}: {e.message}"
            for e in validator.iter_errors(data)]


def test_command_prints_the_schema(run_mmr: Callable[..., Any], tmp_path: Path) -> None:
    result = run_mmr("config", "schema", cwd=tmp_path)
    assert (result.code, result.err) == (0, "")
    assert result.out == render_schema() + "\n"
    schema = config_file_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] and schema["title"]


def test_command_refuses_a_surplus_argument(run_mmr: Callable[..., Any], tmp_path: Path) -> None:
    result = run_mmr("config", "schema", "extra", cwd=tmp_path)
    assert (result.code, result.out) == (1, "")
    assert result.err == "mmr: error: unexpected argument 'extra'\nTry 'mmr config schema --help'\n"


def test_shipped_schema_is_current() -> None:
    assert SHIPPED.read_text(encoding="utf-8") == render_schema() + "\n", REGENERATE


def test_every_key_is_in_the_schema_with_its_description() -> None:
    properties = config_file_schema()["$defs"]["Defaults"]["properties"]
    for name, field in Defaults.model_fields.items():
        assert properties[name]["description"] == field.description


def test_example_presets_and_init_template_validate(
        validator: jsonschema.Draft202012Validator) -> None:
    example = (REPO / ".mmr.yaml.example").read_text(encoding="utf-8")
    init = render_init_config([(name, True) for name in BUILTIN_CHANNEL_ORDER], EXAMPLE_IDS)
    for text in (example, init, uncomment_examples(init)):
        assert errors(validator, parse_config_mapping(text, "example")) == []
    assert errors(validator, builtin_layer()) == []


@pytest.mark.parametrize(("data", "where"), [
    ({"defaults": {"timeout": "300"}}, "defaults.timeout"),
    ({"defaults": {"timeout": 0}}, "defaults.timeout"),
    ({"defaults": {"fix_threshold": "P9"}}, "defaults.fix_threshold"),
    ({"defaults": {"min_completed_channels": 0}}, "defaults.min_completed_channels"),
    ({"defaults": {"compensator": {"chanel": "x"}}}, "defaults.compensator"),
    ({"channels": {"x": {"retry": {"on": ["timeout"]}}}}, "channels.x"),
    ({"channels": {"x": {"kind": "http", "timeout": 5, "api_key_header": 1}}},
     "channels.x.api_key_header"),
    ({"channels": {"x": {"output_parser": {"kind": "regex-findings", "flags": "q"}}}},
     "channels.x"),
    ({"channels": {"x": {"telemetry": {"tokens": "$.t"}}}}, "channels.x"),
])
def test_schema_rejects_what_the_loader_rejects(
        validator: jsonschema.Draft202012Validator, data: dict[str, Any], where: str) -> None:
    best = jsonschema.exceptions.best_match(validator.iter_errors(data))
    assert best is not None
    assert ".".join(map(str, best.absolute_path)) == where, best


def test_a_layer_needs_no_required_key(validator: jsonschema.Draft202012Validator) -> None:
    partial = {"defaults": None, "channels": {"minimax": {"kind": "http", "timeout": 60},
                                              "claude": {"auth": {"timeout": 10}},
                                              "codex": None},
               "unknown_key": True}
    assert errors(validator, partial) == []


def configs_in_test_sources() -> list[tuple[str, str]]:
    """Every string literal in tests/ that parses as a config mapping, with its location."""
    top = set(MmrConfig.model_fields)
    found: dict[str, str] = {}
    for path in sorted((REPO / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Constant) and isinstance(node.value, str)
                    and ":" in node.value and "\n" in node.value):
                continue
            try:
                data = parse_config_mapping(node.value, "literal")
            except ConfigError:
                continue
            if data and set(data) <= top:
                found.setdefault(node.value, f"{path.relative_to(REPO)}:{node.lineno}")
    return list(found.items())


def test_every_config_in_the_tests_agrees_with_the_loader(
        validator: jsonschema.Draft202012Validator, tmp_path: Path) -> None:
    configs = configs_in_test_sources()
    disagreements, rejected = [], 0
    for text, where in configs:
        schema_errors = errors(validator, parse_config_mapping(text, where))
        try:
            load_config(tmp_path, project_source=ProjectText(text, where),
                        on_warning=lambda _: None)
            invalid = False
        except ConfigValidationError:
            invalid = True
        except ConfigError:
            invalid = False  # not a schema error (extends, runnable checks)
        rejected += bool(schema_errors)
        if schema_errors and not invalid:
            disagreements.append(f"{where}: loader accepts, schema says {schema_errors}")
    assert disagreements == []
    assert len(configs) >= 100 and rejected >= 10, (len(configs), rejected)
