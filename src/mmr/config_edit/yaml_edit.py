"""A config file as an editable document: ruamel.yaml round-trip, comments and order kept.

PyYAML (``yaml_io``) stays the reader that decides what a file *means*; this module only
edits text the user owns, so an edit changes the lines it must and nothing else:
comments, key order, quoting and indentation survive. ruamel reads YAML 1.2,
like the reader, so ``yes`` stays a string here too.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import yaml as pyyaml
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap
from ruamel.yaml.error import YAMLError
from ruamel.yaml.scalarstring import DoubleQuotedScalarString

from mmr.config.yaml_io import describe_yaml_error, parse_yaml, yaml_kind
from mmr.config_edit.yaml_comments import (
    Parent,
    add_first_comments,
    append_rest,
    drop_key_comments,
    is_block,
    last_holder,
    shift_eol_comment,
    tail_holder,
    take_first_comments,
    take_rest,
)
from mmr.config_edit.yaml_style import round_trip_yaml, split_preamble
from mmr.errors import ConfigError

#: Text of a file mmr creates before the first edit.
NEW_FILE_TEXT = "version: 1\n"
_EMPTY_OR_COMMENT = re.compile(r"^\s*(#.*)?$")


class YamlEditError(Exception):
    """The file cannot be edited safely; the message says why (it is left untouched)."""


@dataclass
class EditableConfig:
    """One config document: the top-level mapping plus text ruamel would not keep."""

    root: CommentedMap
    preamble: str
    yaml: YAML

    @classmethod
    def parse(cls, text: str, label: str) -> EditableConfig:
        """Parse ``text`` for editing; refuse multi-document, broken or non-mapping files."""
        preamble, body = split_preamble(text)
        yaml = round_trip_yaml(body)
        try:
            documents = list(yaml.load_all(body))
        except (YAMLError, ValueError) as exc:
            raise YamlEditError(
                f"cannot edit {label}: it has YAML syntax errors ({describe_yaml_error(exc)})"
            ) from None
        if len(documents) > 1:
            raise YamlEditError(f"multi-document YAML not supported: {label}")
        root = documents[0] if documents else None
        if root is None:
            if not all(_EMPTY_OR_COMMENT.match(line) for line in body.splitlines()):
                raise YamlEditError(f"cannot edit {label}: the document is null")
            return cls(CommentedMap(), preamble + body, yaml)  # keep a comment-only file's text
        if not isinstance(root, CommentedMap):
            raise YamlEditError(
                f"cannot edit {label}: expected a mapping at the top level, got {yaml_kind(root)}"
            )
        return cls(root, preamble, yaml)

    def dump(self) -> str:
        out = io.StringIO()
        self.yaml.dump(self.root, out)
        text = out.getvalue()
        if self.preamble and not self.preamble.endswith("\n"):
            return self.preamble + "\n" + text
        return self.preamble + text

    def get(self, segments: Sequence[str]) -> tuple[bool, Any]:
        node: Any = self.root
        for segment in segments:
            if not isinstance(node, dict) or segment not in node:
                return False, None
            node = node[segment]
        return True, node

    def set(self, segments: Sequence[str], value: Any) -> None:
        """Set the value at ``segments``, creating missing mappings in block style."""
        node = self.root
        for depth, segment in enumerate(segments[:-1]):
            if segment not in node:
                # Build the missing branch whole, so comments move once, past all of it.
                branch: Any = typed(value)
                for inner in reversed(segments[depth + 1:]):
                    branch = CommentedMap([(inner, branch)])
                _add(node, segment, branch)
                return
            child = node[segment]
            if not isinstance(child, CommentedMap):
                where = ".".join(segments[: depth + 1])
                raise YamlEditError(f"{where} is not a mapping in the file")
            node = child
        key = segments[-1]
        if key in node:
            _replace(node, key, typed(value))
        else:
            _add(node, key, typed(value))

    def delete(self, segments: Sequence[str]) -> bool:
        """Remove the key at ``segments``; parent mappings left empty go too.

        Comment lines that followed the removed entry stay where they were. Returns
        False (and changes nothing) when the key is not in the file.
        """
        found, _ = self.get(segments)
        if not found or not segments:
            return False
        chain: list[CommentedMap] = [self.root]
        for segment in segments[:-1]:
            chain.append(chain[-1][segment])
        carry = ""
        for depth in range(len(segments) - 1, -1, -1):
            mapping, key = chain[depth], segments[depth]
            parent = (chain[depth - 1], segments[depth - 1]) if depth else None
            carry = _remove(mapping, key, carry, parent)
            if len(mapping) or depth == 0:
                break
        if carry:  # the document became empty: keep the comments at its end
            self.preamble += carry
        return True


def typed(value: Any) -> Any:
    """A value as it should be written: strings that would read back as another type
    (``"true"``, ``"yes"``, ``"300"``, ``"null"``) are double-quoted; the rest pass as is."""
    if isinstance(value, str) and _reads_as_other_type(value):
        return DoubleQuotedScalarString(value)
    return value


def _reads_as_other_type(text: str) -> bool:
    try:
        as_12 = parse_yaml(text, "value")
        as_11 = pyyaml.safe_load(text)  # YAML 1.1 readers see `yes`/`on` as booleans
    except (ConfigError, pyyaml.YAMLError):
        return True
    return not (isinstance(as_12, str) and as_12 == text and as_11 == text)


def _add(mapping: CommentedMap, key: str, value: Any) -> None:
    """Append ``key``, keeping the comment lines after the old last entry after the new one."""
    if not len(mapping) and mapping.fa.flow_style():
        mapping.fa.set_block_style()  # `defaults: {}` grows into a block, not `{a: 1}`
    rest = take_rest(last_holder(mapping)) if is_block(mapping) else ""
    mapping[key] = value
    append_rest(tail_holder(mapping, key), rest)


def _replace(mapping: CommentedMap, key: str, value: Any) -> None:
    old = mapping[key]
    if is_block(old):
        rest = take_rest(tail_holder(mapping, key))
        mapping[key] = value
        append_rest(tail_holder(mapping, key), rest)
        return
    if not isinstance(value, dict | list) and not isinstance(old, dict | list):
        shift_eol_comment(mapping, key, old, value)
    mapping[key] = value


def _remove(mapping: CommentedMap, key: str, carry: str, parent: Parent) -> str:
    """Delete ``key`` with its own comments; returns comment lines that still need a home.

    The comment block right above the key (as deep as the key) and its end-of-line
    comment go with it; comment lines after it, which precede whatever comes next, stay.
    """
    keys = list(mapping)
    index = keys.index(key)
    column = _key_column(mapping, key)
    rest = carry + take_rest(tail_holder(mapping, key))
    if index > 0:
        previous = tail_holder(mapping, keys[index - 1])
        before = drop_key_comments(take_rest(previous), column)
        append_rest(previous, before + rest)
    elif parent is not None:
        rest = take_first_comments(mapping, parent, column) + rest
    del mapping[key]
    mapping.ca.items.pop(key, None)
    if index > 0 or not rest:
        return ""
    if len(mapping):
        add_first_comments(mapping, parent, rest)
        return ""
    return rest


def _key_column(mapping: CommentedMap, key: str) -> int | None:
    position = mapping.lc.data.get(key) if mapping.lc.data else None
    return int(position[1]) if position else None
