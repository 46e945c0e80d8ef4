"""Read config YAML as MMR 4.0.1 does: YAML 1.2 core schema, one document.

PyYAML follows YAML 1.1, where ``yes``/``on`` are booleans, ``0777`` is octal 511,
``1e3`` is a string and ``1:30`` is 90. The resolver below recognises only the 1.2
core forms (plus timestamps, which MMR 4.0.1 also produces and which then fail
any string field). Duplicate keys and multi-document streams are errors, as in
MMR 4.0.1. Every failure is a :class:`~mmr.errors.ConfigError` naming the file and,
where the parser knows it, the line.
"""

from __future__ import annotations

import math
import re
import sys
from typing import Any

import yaml
from yaml._yaml import CParser
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.nodes import MappingNode, Node, SequenceNode
from yaml.resolver import BaseResolver

from mmr.errors import ConfigError

_INT = re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$")
_FLOAT = re.compile(
    r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)
_BOOL = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_TIMESTAMP = re.compile(
    r"^(?:[0-9]{4}-[0-9]{2}-[0-9]{2}"
    r"|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}"
    r"(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)$"
)


_MAX_EXACT_INT_DIGITS = 308  # longer decimal integers may not fit a float


class _CoreResolver(BaseResolver):
    """Implicit tags of the YAML 1.2 core schema (and timestamps, as MMR 4.0.1 has)."""


for _tag, _pattern, _first in (("bool", _BOOL, "tTfF"), ("int", _INT, "-+0123456789"),
                               ("float", _FLOAT, "-+0123456789."),
                               ("null", _NULL, ["~", "n", "N", ""]),
                               ("timestamp", _TIMESTAMP, "0123456789")):
    _CoreResolver.add_implicit_resolver(f"tag:yaml.org,2002:{_tag}", _pattern, list(_first))


class _CoreConstructor(SafeConstructor):
    """SafeConstructor with 1.2 numbers and duplicate-key detection."""

    def construct_core_int(self, node: Node) -> int | float:
        text = str(self.construct_scalar(node))  # type: ignore[arg-type]
        if text.startswith("0o"):
            value = int(text[2:], 8)
        elif text.startswith("0x"):
            value = int(text[2:], 16)
        elif len(text) > _MAX_EXACT_INT_DIGITS:
            return float(text)  # as JavaScript reads it (Infinity), not int()'s digit limit
        else:
            value = int(text, 10)  # leading zeros are decimal in 1.2: 0777 is 777
        # JavaScript numbers are doubles: an integer beyond their range is Infinity.
        return value if value <= sys.float_info.max else math.inf

    def construct_yaml_float(self, node: Node) -> float:
        text = str(self.construct_scalar(node)).lower()  # type: ignore[arg-type]
        if text.endswith(".inf"):
            return -math.inf if text.startswith("-") else math.inf
        if text == ".nan":
            return math.nan
        return float(text)

    def construct_mapping(self, node: Node, deep: bool = False) -> dict[Any, Any]:
        if not isinstance(node, MappingNode):
            raise ConstructorError(None, None, "expected a mapping", node.start_mark)
        mapping: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = _js_key(self.construct_object(key_node, deep=True))
            if key is None:
                raise ConstructorError(None, None, "a mapping key must be a plain scalar",
                                       key_node.start_mark)
            if key in mapping:
                raise ConstructorError(None, None, f'duplicated mapping key "{key}"',
                                       key_node.start_mark)
            mapping[key] = self.construct_object(value_node, deep=deep)
        return mapping

    yaml_constructors = {  # noqa: RUF012 - PyYAML's registry is a class attribute by design
        **SafeConstructor.yaml_constructors,
        "tag:yaml.org,2002:int": construct_core_int,
        "tag:yaml.org,2002:float": construct_yaml_float,
    }


def _js_key(key: Any) -> str | None:
    """Mapping keys become strings, as object keys do in MMR 4.0.1 (``1:`` is ``"1"``)."""
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if key is None:
        return "null"
    if isinstance(key, int | float):
        return str(int(key)) if isinstance(key, float) and key.is_integer() else str(key)
    return None


class _Loader(CParser, _CoreConstructor, _CoreResolver):
    """libyaml's parser with the 1.2 resolver and constructor above (they run in Python).

    Only libyaml's parser: its error messages are the ones mmr has always printed, and it
    refuses nesting deeper than 1,000 levels itself. PyYAML's wheels ship it.
    """

    def __init__(self, stream: str) -> None:
        CParser.__init__(self, stream)
        _CoreConstructor.__init__(self)
        _CoreResolver.__init__(self)


#: Aliases may repeat a value, but not blow a small file up into millions of them.
MAX_EXPANDED_NODES = 100_000
#: Far deeper than any config; keeps every recursive walker after the reader safe.
MAX_DEPTH = 100


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def check_node_graph(root: Node) -> None:
    """Refuse alias cycles, alias bombs and deep nesting before anything is constructed.

    The composer shares one node per anchor, so a "billion laughs" file is small here;
    this walk (iterative, each node once) measures the size and depth it would have with
    every alias expanded, which is what the merge, provenance and validation steps see.
    """
    size: dict[int, int] = {}
    height: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, finished = stack.pop()
        key = id(node)
        children = _children(node)
        if finished:
            on_path.discard(key)
            size[key] = min(1 + sum(size[id(c)] for c in children), MAX_EXPANDED_NODES + 1)
            height[key] = 1 + max((height[id(c)] for c in children), default=0)
            continue
        if key in size:
            continue
        on_path.add(key)
        stack.append((node, True))
        for child in children:
            if id(child) in on_path:
                raise ConstructorError(None, None, "recursive alias: a value contains itself",
                                       child.start_mark)
            stack.append((child, False))
    if height[id(root)] > MAX_DEPTH:
        raise ConstructorError(None, None, f"nested more than {MAX_DEPTH} levels deep",
                               root.start_mark)
    if size[id(root)] > MAX_EXPANDED_NODES and len(size) <= MAX_EXPANDED_NODES:
        raise ConstructorError(
            None, None, f"aliases expand the document to more than {MAX_EXPANDED_NODES:,} "
            "values; write the repeated values out instead", root.start_mark)


def parse_yaml(text: str, label: str) -> Any:
    """Parse one YAML 1.2 document; ``None`` for an empty or comment-only document."""
    try:
        loader = _Loader(text)
    except UnicodeEncodeError:  # libyaml reads UTF-8: a lone surrogate cannot be encoded
        raise ConfigError(f"Failed to parse {label}: the text is not valid Unicode "
                          "(it holds a lone surrogate)") from None
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        check_node_graph(node)
        return loader.construct_document(node)
    except yaml.YAMLError as exc:
        raise ConfigError(f"Failed to parse {label}: {describe_yaml_error(exc)}") from None
    except (ValueError, OverflowError) as exc:  # e.g. a timestamp-shaped 2024-13-45
        raise ConfigError(f"Failed to parse {label}: {exc}") from None
    except (LookupError, AttributeError, TypeError):  # e.g. "!!bool x", "!!timestamp x"
        raise ConfigError(f"Failed to parse {label}: a value does not match its "
                          "explicit YAML tag") from None
    finally:
        loader.dispose()


def parse_config_mapping(text: str, label: str) -> dict[str, Any]:
    """Parse a config document whose root must be a mapping; empty files give ``{}``."""
    data = parse_yaml(text, label)
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(
            f"Invalid config in {label}: expected a mapping at the top level, got {yaml_kind(data)}"
        )
    return data


_KIND_WORDS: tuple[tuple[type | None, str], ...] = (
    (type(None), "null"), (bool, "boolean"), (int, "number"), (float, "number"),
    (str, "string"), (list, "list"), (dict, "mapping"),
)


def yaml_kind(value: Any) -> str:
    """The YAML word for a parsed value's type, for error messages."""
    for python_type, word in _KIND_WORDS:
        if python_type is not None and isinstance(value, python_type):
            return word
    return "date" if hasattr(value, "isoformat") else type(value).__name__


def describe_yaml_error(exc: Exception) -> str:
    """One line: the problem, then where it is (1-based line and column). PyYAML's and
    ruamel.yaml's marked errors have the same attributes; anything else is its message."""
    if not hasattr(exc, "problem_mark"):
        return " ".join(str(exc).split())
    problem = getattr(exc, "problem", None) or getattr(exc, "context", None) or "invalid YAML"
    if "but found another document" in problem:
        problem = "expected a single document in the stream, but found more"
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    if mark is not None:
        return f"{problem} (line {mark.line + 1}, column {mark.column + 1})"
    return str(problem)
