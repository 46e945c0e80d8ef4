"""``json.dumps(value, indent=2, ensure_ascii=False)``, byte for byte, several times faster.

The standard library drops its C encoder as soon as ``indent`` is set and walks every
value in Python. A verdict document of a few thousand findings is mostly lists of short
strings (``description_shingle``), so encoding each list of scalars in one ``join`` over
the C string encoder does most of the work at C speed; dicts and lists keep the exact
layout of :func:`json.dumps`. Anything this fast path does not cover (non-string keys,
other types) falls back to :func:`json.dumps` itself, so the output never differs.
"""

from __future__ import annotations

import json
import math
from json.encoder import encode_basestring  # the C implementation when available
from typing import Any

_INDENT = "  "


class _Unsupported(Exception):
    """A value the fast path leaves to :func:`json.dumps`."""


def dumps_indented(value: Any) -> str:
    """``json.dumps(value, indent=2, ensure_ascii=False)``."""
    parts: list[str] = []
    try:
        _encode(value, "\n", parts)
    except (_Unsupported, RecursionError):
        return json.dumps(value, indent=2, ensure_ascii=False)
    return "".join(parts)


def _scalar(value: Any) -> str:
    kind = type(value)
    if kind is str:
        return encode_basestring(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if kind is int:
        return int.__repr__(value)
    if kind is float and math.isfinite(value):  # NaN/Infinity: json.dumps's own spelling
        return float.__repr__(value)
    raise _Unsupported


def _encode(value: Any, newline: str, parts: list[str]) -> None:
    """Append ``value`` encoded at the indentation ``newline`` (a newline plus spaces)."""
    kind = type(value)
    if kind is dict:
        _encode_dict(value, newline, parts)
    elif kind is list or kind is tuple:
        _encode_list(value, newline, parts)
    else:
        parts.append(_scalar(value))


def _encode_dict(value: dict[Any, Any], newline: str, parts: list[str]) -> None:
    if not value:
        parts.append("{}")
        return
    inner = newline + _INDENT
    separator = "{" + inner
    for key, item in value.items():
        if type(key) is not str:
            raise _Unsupported
        parts.append(separator)
        parts.append(encode_basestring(key))
        parts.append(": ")
        if type(item) is str:  # the common case, without a call per value
            parts.append(encode_basestring(item))
        else:
            _encode(item, inner, parts)
        separator = "," + inner
    parts.append(newline + "}")


def _encode_list(value: list[Any] | tuple[Any, ...], newline: str, parts: list[str]) -> None:
    if not value:
        parts.append("[]")
        return
    inner = newline + _INDENT
    try:  # a list of strings, in one pass of the C encoder (it rejects anything else)
        parts.append("[" + inner + ("," + inner).join(map(encode_basestring, value))
                     + newline + "]")
        return
    except TypeError:
        pass
    separator = "[" + inner
    for item in value:
        parts.append(separator)
        _encode(item, inner, parts)
        separator = "," + inner
    parts.append(newline + "]")
