"""Key-name based redaction for config views, recovery text and the review cache's key.

A value is hidden because the *name* attached to it looks secret (``OPENAI_API_KEY=…``,
``--token …``, ``Authorization: …``); a bare value with no telling name is not recognised
here. Credential *values* in the diff are a different problem, handled by
:mod:`mmr.secrets.credentials`. The predicates live in :mod:`mmr.secrets.secret_names` and
are re-exported here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TypeGuard

from mmr.secrets.credentials import redact_credentials
from mmr.secrets.secret_names import contains_inline_secret, is_command_secret_key, is_secret_key

__all__ = [
    "REDACTED", "contains_inline_secret", "is_command_secret_key", "is_secret_key",
    "redact_channel", "redact_channel_show", "redact_inherited_value", "redact_list",
    "redact_mapping", "redact_text",
]

REDACTED = "<redacted>"


def redact_text(text: str) -> str:
    """Recovery/command text, or ``<redacted>`` when it embeds a secret anywhere.

    The whole string goes: a partial rewrite could still leave part of the value. Text with
    no secret-looking name still has credential *values* replaced (a version line or an
    error that repeats a token).
    """
    if contains_inline_secret(text):
        return REDACTED
    return redact_credentials(text)[0]


# --- structured redaction: a channel's config as the review cache keys it ----------------

_ASSIGNMENT = re.compile(r"(\s*)([^:=\s]+)(\s*[:=]\s*)(.*)")
_NESTED_SECRET_ASSIGNMENT = re.compile(r"""(?:^|[=:])"?([A-Za-z0-9_.-]+)"?\s*[:=]""")


def _is_list(value: object) -> TypeGuard[Sequence[object]]:
    return isinstance(value, list | tuple)


def redact_mapping(mapping: Mapping[str, object], *,
                   exempt_env_name: bool = True) -> dict[str, object]:
    """A copy with every secret-keyed value replaced by ``<redacted>``, other values walked.

    The ``api_key_env`` exemption applies to this level only; nested mappings and lists
    are redacted without it. The input is never mutated.
    """
    return {
        key: REDACTED if is_secret_key(str(key), exempt_env_name=exempt_env_name)
        else _redact_nested(value)
        for key, value in mapping.items()
    }


def redact_channel(channel: Mapping[str, object]) -> dict[str, object]:
    """A channel's fields redacted, keeping its own ``api_key_env`` (a variable *name*)."""
    return redact_mapping(channel)


def _redact_nested(value: object) -> object:
    if _is_list(value):
        return redact_list(value)
    if isinstance(value, Mapping):
        return redact_mapping(value, exempt_env_name=False)
    return value


def _redact_assignment_string(text: str) -> str:
    """``KEY=value`` / ``Key: value`` with a secret key (or a nested secret) → value hidden."""
    match = _ASSIGNMENT.fullmatch(text)
    if match is None:
        return REDACTED if is_secret_key(text.strip(), exempt_env_name=False) else text
    indent, key, separator, value = match.groups()
    nested = any(is_secret_key(m.group(1), exempt_env_name=False)
                 for m in _NESTED_SECRET_ASSIGNMENT.finditer(value))
    if is_secret_key(key, exempt_env_name=False) or nested:
        return f"{indent}{key}{separator}{REDACTED}"
    return text


def _redact_labelled_entry(entry: Mapping[str, object]) -> dict[str, object]:
    """``{name|key: <label>, value: …}``: the label stays, the value goes when it is secret."""
    out = redact_mapping(entry, exempt_env_name=False)
    secret_label = False
    for label_field in ("name", "key"):
        label = entry.get(label_field)
        if isinstance(label, str):
            out[label_field] = label
            secret_label = secret_label or is_secret_key(label, exempt_env_name=False)
    if secret_label and "value" in out:
        out["value"] = REDACTED
    return out


def redact_list(items: Sequence[object]) -> list[object]:
    """A list-shaped ``env``/``headers``/``flags`` value redacted element by element."""
    out: list[object] = []
    index = 0
    while index < len(items):
        item = items[index]
        following = items[index + 1] if index + 1 < len(items) else None
        if (isinstance(item, str) and isinstance(following, str)
                and is_secret_key(item, exempt_env_name=False)):
            out += [item, REDACTED]
            index += 2
            continue
        if isinstance(item, str):
            out.append(_redact_assignment_string(item))
        elif _is_list(item):
            out.append(_redact_nested_pair(item))
        elif isinstance(item, Mapping):
            out.append(_redact_labelled_entry(item))
        else:
            out.append(item)
        index += 1
    return out


def _redact_nested_pair(pair: Sequence[object]) -> list[object]:
    head = pair[0] if pair else None
    if isinstance(head, str) and len(pair) == 1:
        return [_redact_assignment_string(head)]
    if isinstance(head, str) and len(pair) >= 2 and is_secret_key(head, exempt_env_name=False):
        return [head, REDACTED, *redact_list(pair[2:])]
    return redact_list(pair)


# --- `config show` / `config unset` views ----------------------------------------------

_COMMAND_FIELDS = frozenset({"command", "check", "recovery"})
#: A channel's own fields that name a variable or a header, never hold a secret. The
#: MMR 4.0.1 redacts ``api_key_header``/``api_key_prefix`` too (``api`` + ``key``); we don't.
_CHANNEL_NAME_FIELDS = frozenset({"api_key_env", "api_key_header", "api_key_prefix"})


def redact_channel_show(channel: Mapping[str, object]) -> dict[str, object]:
    """A channel as ``config show`` prints it: mappings walked whatever their key (so
    ``auth.check`` is still shown), commands checked whole, secret-keyed scalars hidden."""
    return _show_mapping(channel, channel_level=True)


def _show_mapping(mapping: Mapping[str, object], *, channel_level: bool) -> dict[str, object]:
    return {key: _show_field(str(key), value, channel_level=channel_level)
            for key, value in mapping.items()}


def _show_field(key: str, value: object, *, channel_level: bool) -> object:
    if isinstance(value, Mapping):
        return _show_mapping(value, channel_level=False)
    if _is_list(value):
        return _show_list(value)
    if key in _COMMAND_FIELDS and isinstance(value, str):
        return redact_text(value)
    if value is None or (channel_level and key in _CHANNEL_NAME_FIELDS):
        return value
    return REDACTED if is_secret_key(key, exempt_env_name=False) else value


def _is_bare_flag(text: str) -> bool:
    return not any(ch.isspace() or ch in ":=" for ch in text)


def _show_list(items: Sequence[object]) -> list[object]:
    """``["--api-key", "sk"]`` → value hidden; a string embedding a secret → ``<redacted>``."""
    out: list[object] = []
    index = 0
    while index < len(items):
        item = items[index]
        following = items[index + 1] if index + 1 < len(items) else None
        if (isinstance(item, str) and isinstance(following, str) and _is_bare_flag(item)
                and is_command_secret_key(item)):
            out += [item, REDACTED]
            index += 2
            continue
        if isinstance(item, str):
            out.append(redact_text(item))
        elif isinstance(item, Mapping):
            out.append(_show_mapping(item, channel_level=False))
        elif _is_list(item):
            out.append(_show_list(item))
        else:
            out.append(item)
        index += 1
    return out


def redact_inherited_value(path: Sequence[str], value: object) -> object:
    """The value ``config unset <path>`` reports as now inherited, redacted for display.

    A whole channel (``channels.<name>``) is shown as ``config show`` would; a mapping is
    walked rather than collapsed (MMR 4.0.1 collapses ``auth`` to ``<redacted>``).
    """
    leaf = path[-1] if path else ""
    if len(path) == 2 and path[0] == "channels" and isinstance(value, Mapping):
        return redact_channel_show(value)
    if isinstance(value, Mapping):
        return _show_mapping(value, channel_level=False)
    if _is_list(value):
        return _show_list(value)
    channel_field = len(path) == 3 and path[0] == "channels"
    return _show_field(leaf, value, channel_level=channel_field)
