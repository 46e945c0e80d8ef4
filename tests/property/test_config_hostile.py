"""Hostile ``.mmr.yaml`` text never crashes the config loader.

Every file, whatever its bytes, ends in a LoadedConfig or a ConfigError, in bounded time
and memory, and the loader writes nothing. The YAML reader refuses alias bombs, alias
cycles and deep nesting itself, so no later step ever walks an exploded document.
"""

from __future__ import annotations

import contextlib
import time
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import event, example, given
from hypothesis import strategies as st

from mmr.config.loaded import LoadedConfig, ProjectText, WorkingTree
from mmr.config.loader import load_config
from mmr.config.yaml_io import MAX_DEPTH, MAX_EXPANDED_NODES, parse_yaml
from mmr.errors import ConfigError
from tests.property.strategies import ANY_CHAR, PARSER_SPECS

_TOP_KEYS = ["version", "defaults", "channels", "channels_disabled", "review_criteria",
             "templates", "unknown_key"]
_DEFAULT_KEYS = ["fix_threshold", "min_completed_channels", "timeout", "format", "parallel",
                 "job_retention_days", "loop_control", "compensator", "ack_retention_days",
                 "diff_exclude", "max_diff_lines", "secret_findings", "typo_key"]
_CHANNEL_KEYS = ["kind", "auth", "enabled", "command", "flags", "env", "headers",
                 "prompt_wrapper", "prompt_delivery", "cwd", "output_parser", "stderr",
                 "timeout", "extends", "abstract", "required", "retired", "role", "vars",
                 "retry", "telemetry", "assert_clean_tree", "on_credentials", "max_diff_lines",
                 "diff_exclude", "endpoint", "model", "api_key_env", "endpoint_convention"]
_CHANNEL_NAMES = ["claude", "codex", "gemini", "grok", "agy", "opc", "minimax", "mine",
                  "$(touch x)", "../x", "a.b"]

# Scalars YAML can dump; surrogates go through the byte-level strategies instead.
_SAFE_TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
_YAML_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(), _SAFE_TEXT,
    st.sampled_from(["P0", "P2", "json", "subprocess", "http", "review", "explore", "redact",
                     "yes", "on", "0777", "1e3", "1:30", ".inf", "2024-13-45", "~"]),
    st.integers(min_value=10**300, max_value=10**320),  # huge literals: see _YAML_TOKENS
)
_YAML_VALUES: st.SearchStrategy[Any] = st.recursive(
    _YAML_SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_SAFE_TEXT, inner, max_size=3),
    max_leaves=12,
)


def _keyed(keys: list[str], values: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.dictionaries(st.sampled_from(keys) | _SAFE_TEXT, values, max_size=6)


_CHANNEL = _keyed(_CHANNEL_KEYS, _YAML_VALUES | PARSER_SPECS.filter(
    lambda spec: not _has_surrogate(spec)))
CONFIG_MAPPINGS = st.fixed_dictionaries({}, optional={
    "version": _YAML_VALUES,
    "defaults": _keyed(_DEFAULT_KEYS, _YAML_VALUES) | _YAML_VALUES,
    "channels": st.dictionaries(st.sampled_from(_CHANNEL_NAMES) | _SAFE_TEXT,
                                _CHANNEL | _YAML_VALUES, max_size=3) | _YAML_VALUES,
    "channels_disabled": _YAML_VALUES,
    "review_criteria": _YAML_VALUES,
    "templates": _YAML_VALUES,
})


def _has_surrogate(value: Any) -> bool:
    text = repr(value)
    return any("\ud800" <= ch <= "\udfff" for ch in text) or "\\ud" in text


@st.composite
def dumped_config(draw: st.DrawFn) -> str:
    """A random mapping as YAML text, in block or flow style."""
    data = draw(CONFIG_MAPPINGS)
    return yaml.safe_dump(data, default_flow_style=draw(st.sampled_from([None, True, False])),
                          allow_unicode=draw(st.booleans()), width=10**6)


# Raw YAML syntax: anchors, aliases, tags, directives, tabs, BOM, flow and block markers.
_YAML_TOKENS = [
    "defaults:", "channels:", "  claude:", "    command: ", "  timeout: ", "fix_threshold: ",
    "\n", "\n  ", "\n    ", "\t", "- ", ": ", "? ", "{", "}", "[", "]", ", ", "&a ", "*a",
    "&b ", "*b", "*missing", "<<: *a", "!!str ", "!!int ", "!!float ", "!!bool ", "!!null ",
    "!!timestamp ", "!!binary ", "!!set ", "!!omap ", "!!pairs ", "!!map ", "!!seq ",
    "!!python/object:os.system ", "!custom ", "!<tag:yaml.org,2002:int> ", "%YAML 1.2\n---\n",
    "%TAG ! tag:x,2000:\n---\n", "---\n", "...\n", "\ufeff", "#", "'", '"', "|", ">", "~",
    "0x" + "f" * 5000, "0o" + "7" * 9000, "9" * 5000, "1e999999", ".nan", "-.inf",
    "2001-12-14t21:59:43.10-99:00", "9999-99-99", "\\ud800", '"\\ud800"', '"\\x00"', "\x85",
    "\u2028", "P1", "yes", "x",
]
YAMLISH_TEXT = st.lists(st.sampled_from(_YAML_TOKENS) | st.text(ANY_CHAR, max_size=3),
                        max_size=40).map("".join)


@st.composite
def alias_bomb(draw: st.DrawFn) -> str:
    """A "billion laughs" document: each level repeats the previous anchor ``width`` times."""
    levels, width = draw(st.integers(2, 12)), draw(st.integers(2, 12))
    flow_map = draw(st.booleans())
    lines = ["anchors:", "  l0: &l0 " + ("{k: lol}" if flow_map else "[lol, lol]")]
    for level in range(1, levels):
        refs = [f"*l{level - 1}"] * width
        body = ("{" + ", ".join(f"k{i}: {r}" for i, r in enumerate(refs)) + "}") if flow_map \
            else "[" + ", ".join(refs) + "]"
        lines.append(f"  l{level}: &l{level} {body}")
    target = draw(st.sampled_from(["defaults:\n  review_criteria", "review_criteria",
                                   "channels:\n  claude:\n    env", "channels",
                                   "defaults:\n  diff_exclude"]))
    return "\n".join(lines) + f"\n{target}: *l{levels - 1}\n"


def _load(root: Path, **kwargs: Any) -> LoadedConfig | ConfigError:
    warnings: list[str] = []
    try:
        return load_config(root, on_warning=warnings.append, **kwargs)
    except ConfigError as exc:
        assert str(exc).strip()
        return exc


def _load_file(base: Path, data: bytes) -> LoadedConfig | ConfigError:
    """Write ``data`` as the project file and load it; check the loader wrote nothing."""
    (base / ".mmr.yaml").write_bytes(data)
    before = sorted(p.name for p in base.iterdir())
    start = time.perf_counter()
    outcome = _load(base, project_source=WorkingTree())
    assert time.perf_counter() - start < 5.0
    assert sorted(p.name for p in base.iterdir()) == before
    return outcome


@given(text=st.one_of(dumped_config(), YAMLISH_TEXT, alias_bomb()))
@example(text="a: &a [*a]\n")
@example(text="defaults: &d\n  x: *d\n")
@example(text="defaults:\n\tfix_threshold: P1\n")
@example(text="\ufeffdefaults:\n  fix_threshold: P1\n")
@example(text="defaults:\n  timeout: " + "9" * 10_000 + "\n")
@example(text="defaults:\n  timeout: 0x" + "f" * 5000 + "\n")
@example(text="a: !!timestamp x\n")
@example(text="a: !!bool x\n")
def test_any_config_text_loads_or_is_a_config_error(
    tmp_path_factory: pytest.TempPathFactory, text: str
) -> None:
    base = tmp_path_factory.mktemp("cfg")
    event(type(_load_file(base, text.encode("utf-8", "surrogatepass"))).__name__)
    # The same text as a trusted ref's blob (ProjectText) takes the same road.
    with contextlib.suppress(ConfigError):
        load_config(base, project_source=ProjectText(text, "origin/main:.mmr.yaml"),
                    on_warning=lambda _: None)


@given(data=st.binary(max_size=200), prefix=st.sampled_from([b"", b"\xef\xbb\xbf",
                                                            b"defaults:\n  x: ", b"\xff\xfe"]))
def test_any_config_bytes_load_or_are_a_config_error(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, prefix: bytes
) -> None:
    outcome = _load_file(tmp_path_factory.mktemp("cfg"), prefix + data)
    try:
        (prefix + data).decode("utf-8")
    except UnicodeDecodeError:
        assert isinstance(outcome, ConfigError)
        assert "not UTF-8" in str(outcome)


@given(text=st.text(ANY_CHAR, max_size=60))
def test_the_reader_turns_any_string_into_data_or_a_config_error(text: str) -> None:
    try:
        parse_yaml(text, "label")
    except ConfigError as exc:
        assert str(exc).startswith("Failed to parse label: ")


@given(text=alias_bomb())
def test_alias_bombs_are_refused_by_the_reader_in_bounded_memory(text: str) -> None:
    tracemalloc.start()
    start = time.perf_counter()
    try:
        value = parse_yaml(text, "bomb")
    except ConfigError as exc:
        assert "aliases expand the document" in str(exc) or "levels deep" in str(exc)
        value = None
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert time.perf_counter() - start < 2.0
    assert peak < 50 * 2**20
    if value is not None:  # small enough to allow: it really is that small expanded
        assert _expanded(value) <= MAX_EXPANDED_NODES


def _expanded(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + sum(1 + _expanded(v) for v in value.values())
    if isinstance(value, list):
        return 1 + sum(_expanded(v) for v in value)
    return 1


# ------------------------------------------------------------ regressions (fixes pinned)

BILLION_LAUGHS = "\n".join(
    [f"l0: &l0 [{', '.join(['lol'] * 9)}]"]
    + [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, 9)]
    + ["defaults:", "  review_criteria: *l8", ""]
)


def test_billion_laughs_is_a_config_error_not_a_hang(tmp_path: Path) -> None:
    """Fix: aliases were expanded by merge/validation (9^6 leaves took 5 s and 370 MB)."""
    outcome = _load_file(tmp_path, BILLION_LAUGHS.encode())
    assert isinstance(outcome, ConfigError)
    assert "aliases expand the document to more than 100,000 values" in str(outcome)


@pytest.mark.parametrize("text", ["defaults: &d\n  x: *d\n", "channels: &c\n  x: *c\n",
                                  "a: &a [*a]\n"])
def test_a_recursive_alias_is_a_config_error(tmp_path: Path, text: str) -> None:
    """Fix: a mapping that contains itself raised RecursionError in the merge."""
    outcome = _load_file(tmp_path, text.encode())
    assert isinstance(outcome, ConfigError)
    assert "recursive alias: a value contains itself (line 1" in str(outcome)


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 900, 10_000])
def test_deep_nesting_is_a_config_error(tmp_path: Path, depth: int) -> None:
    """Fix: 900 nested flow mappings raised RecursionError while constructing."""
    text = "defaults:\n  x: " + "{a: " * depth + "1" + "}" * depth + "\n"
    outcome = _load_file(tmp_path, text.encode())
    assert isinstance(outcome, ConfigError)
    assert "nested more than 100 levels deep" in str(outcome) or "nesting depth" in str(outcome)


def test_moderate_aliases_and_nesting_still_load(tmp_path: Path) -> None:
    nested_parser = "{kind: unwrap-jsonpath, wrap: $.a, then: " * 20 + "default" + "}" * 20
    text = ("shared: &shared [src/**, docs/**]\n"
            "defaults:\n  diff_exclude: *shared\n"
            f"channels:\n  claude:\n    output_parser: {nested_parser}\n")
    outcome = _load_file(tmp_path, text.encode())
    assert isinstance(outcome, LoadedConfig), outcome
    assert outcome.config.defaults.diff_exclude == ["src/**", "docs/**"]


def test_a_10k_digit_integer_is_read_as_javascript_reads_it(tmp_path: Path) -> None:
    """Fix: the reader failed with Python's int-string limit and its set_int_max_str_digits hint."""
    outcome = _load_file(tmp_path, b"defaults:\n  timeout: " + b"9" * 10_000 + b"\n")
    assert isinstance(outcome, ConfigError)
    assert "defaults.timeout: must be a finite number greater than 0, got inf" in str(outcome)
    assert "set_int_max_str_digits" not in str(outcome)


@pytest.mark.parametrize("text", ["a: \ud800\n", "defaults:\n  x: \udcff\n"])
def test_lone_surrogates_in_config_text_are_a_config_error(text: str) -> None:
    """Fix: libyaml's reader raised UnicodeEncodeError on a str holding a lone surrogate."""
    with pytest.raises(ConfigError, match="Failed to parse label: "):
        parse_yaml(text, "label")


@pytest.mark.parametrize("text", ["a: !!timestamp x\n", "a: !!bool x\n"])
def test_a_value_that_does_not_fit_its_tag_is_a_config_error(text: str) -> None:
    """Fix: PyYAML's constructors raised AttributeError / KeyError for these."""
    with pytest.raises(ConfigError, match="Failed to parse label: "):
        parse_yaml(text, "label")
