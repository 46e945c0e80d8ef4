"""Early-start recipes: what a ``review --sync`` dispatched, as plain data.

A recipe holds, for one key (:func:`mmr.review.early.early_key`), each subprocess channel's
first request exactly as it reached the chokepoint — argv, the environment as an overlay
over mmr's own, cwd, stderr mode, capture limits — and the plain data that rebuilds its
stdin from a fresh diff (run-wide ``diff_exclude`` and ``max_diff_lines``, the prompt
layers, each channel's ``on_credentials``, ``max_diff_lines``, ``diff_exclude`` and
``prompt_wrapper``). It carries a digest of its content. A value that is not exactly this
shape or whose digest or key does not match — a damaged or hand-edited file — is no
recipe: :func:`parse_recipe` returns None and the review runs without an early start.
(The digest is a checksum, not a signature: whoever can write ``$MMR_HOME`` can also
write ``config.yaml``, whose channels run commands anyway.) Files:
:mod:`mmr.cache.recipe_store`. Nothing here imports pydantic, and the values are named
tuples: the early start imports this module, and each dataclass costs it half a
millisecond to define.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from mmr.fs import sha256_hex

RECIPE_VERSION = 1
_STDERR_MODES = ("capture", "suppress")
_CREDENTIAL_POLICIES = ("redact", "refuse", "allow")


class RecipeChannel(NamedTuple):
    """One channel's first request and the inputs of its prompt."""

    name: str
    argv: tuple[str, ...]
    env_set: tuple[tuple[str, str], ...]
    env_unset: tuple[str, ...]
    cwd: str | None
    stderr: str
    max_capture_bytes: int | None
    max_stderr_bytes: int
    max_diff_lines: int | None
    on_credentials: str
    diff_exclude: tuple[str, ...]
    wrapper: str
    #: Its review-cache key material (:func:`mmr.dispatch.cached.cache_material`), so a
    #: channel about to be answered from the cache is not started; None: never cached.
    cache: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return {"cache": self.cache, "name": self.name, "argv": list(self.argv),
                "env_set": dict(self.env_set),
                "env_unset": list(self.env_unset), "cwd": self.cwd, "stderr": self.stderr,
                "max_capture_bytes": self.max_capture_bytes,
                "max_stderr_bytes": self.max_stderr_bytes,
                "max_diff_lines": self.max_diff_lines, "on_credentials": self.on_credentials,
                "diff_exclude": list(self.diff_exclude), "wrapper": self.wrapper}


class Recipe(NamedTuple):
    """The run-wide prompt inputs and the channels of one key."""

    key: str
    diff_exclude: tuple[str, ...]
    max_diff_lines: int | None
    review_criteria: tuple[str, ...]
    template_criteria: tuple[str, ...]
    focus: str | None
    channels: tuple[RecipeChannel, ...]
    #: The review cache's ``root``, ``max_age_s`` and ``max_bytes``; None when it is off.
    cache: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        body = self._body()
        return {**body, "digest": _digest(body)}

    def _body(self) -> dict[str, Any]:
        return {"version": RECIPE_VERSION, "key": self.key, "cache": self.cache,
                "diff_exclude": list(self.diff_exclude), "max_diff_lines": self.max_diff_lines,
                "review_criteria": list(self.review_criteria),
                "template_criteria": list(self.template_criteria), "focus": self.focus,
                "channels": [c.to_json() for c in self.channels]}


def _digest(body: dict[str, Any]) -> str:
    return sha256_hex(json.dumps(body, ensure_ascii=True, sort_keys=True).encode("ascii"))


class _Bad(ValueError):
    pass


def _check(ok: bool) -> None:
    if not ok:
        raise _Bad


def _str(value: object) -> str:
    if not isinstance(value, str):
        raise _Bad
    return value


def _opt_str(value: object) -> str | None:
    return None if value is None else _str(value)


def _strings(value: object) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise _Bad
    return tuple(_str(item) for item in value)


def _count(value: object, *, optional: bool) -> int | None:
    if value is None and optional:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise _Bad
    return value


def _fields(value: object, names: set[str]) -> dict[str, Any]:
    if not isinstance(value, dict) or set(value) != names:
        raise _Bad
    return dict(value)


_CHANNEL_FIELDS = {"cache", "name", "argv", "env_set", "env_unset", "cwd", "stderr",
                   "max_capture_bytes", "max_stderr_bytes", "max_diff_lines",
                   "on_credentials", "diff_exclude", "wrapper"}
_RECIPE_FIELDS = {"version", "key", "cache", "diff_exclude", "max_diff_lines", "review_criteria",
                  "template_criteria", "focus", "channels", "digest"}


def _material(value: object) -> dict[str, Any] | None:
    if value is None:
        return None
    raw = _fields(value, {"channel", "parser", "command"})
    _check(isinstance(raw["channel"], dict) and isinstance(raw["parser"], dict))
    _str(raw["command"])
    return raw


def _cache_settings(value: object) -> dict[str, Any] | None:
    if value is None:
        return None
    raw = _fields(value, {"root", "max_age_s", "max_bytes"})
    _check(_str(raw["root"]).startswith("/"))
    _count(raw["max_bytes"], optional=False)
    age = raw["max_age_s"]
    _check(isinstance(age, int | float) and not isinstance(age, bool) and age > 0)
    return raw


def _channel(value: object) -> RecipeChannel:
    raw = _fields(value, _CHANNEL_FIELDS)
    argv = _strings(raw["argv"])
    _check(bool(argv) and bool(argv[0]) and all("\0" not in a for a in argv))
    env_set = raw["env_set"]
    _check(isinstance(env_set, dict))
    env_items = tuple((_str(k), _str(v)) for k, v in env_set.items())
    _check(all(k and "=" not in k and "\0" not in k + v for k, v in env_items))
    _check(raw["stderr"] in _STDERR_MODES and raw["on_credentials"] in _CREDENTIAL_POLICIES)
    cwd = _opt_str(raw["cwd"])
    _check(cwd is None or cwd.startswith("/"))
    return RecipeChannel(
        cache=_material(raw["cache"]), name=_str(raw["name"]), argv=argv, env_set=env_items,
        env_unset=_strings(raw["env_unset"]), cwd=cwd, stderr=_str(raw["stderr"]),
        max_capture_bytes=_count(raw["max_capture_bytes"], optional=True),
        max_stderr_bytes=_count(raw["max_stderr_bytes"], optional=False) or 0,
        max_diff_lines=_count(raw["max_diff_lines"], optional=True),
        on_credentials=_str(raw["on_credentials"]),
        diff_exclude=_strings(raw["diff_exclude"]), wrapper=_str(raw["wrapper"]))


def parse_recipe(value: object, key: str) -> Recipe | None:
    """``value`` as a recipe of ``key``; None unless it has exactly the recipe's shape."""
    try:
        raw = _fields(value, _RECIPE_FIELDS)
        _check(raw["version"] == RECIPE_VERSION and raw["key"] == key)
        body = {name: item for name, item in raw.items() if name != "digest"}
        _check(raw["digest"] == _digest(body))
        channels = raw["channels"]
        _check(isinstance(channels, list) and bool(channels))
        parsed = tuple(_channel(item) for item in channels)
        _check(len({c.name for c in parsed}) == len(parsed))
        return Recipe(key=key, diff_exclude=_strings(raw["diff_exclude"]),
                      max_diff_lines=_count(raw["max_diff_lines"], optional=True),
                      review_criteria=_strings(raw["review_criteria"]),
                      template_criteria=_strings(raw["template_criteria"]),
                      focus=_opt_str(raw["focus"]), channels=parsed,
                      cache=_cache_settings(raw["cache"]))
    except _Bad:
        return None
