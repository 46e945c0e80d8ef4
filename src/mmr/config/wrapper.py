"""``prompt_wrapper`` values that name a shipped template: ``"{{template:<file>}}"``.

The MiniMax presets wrap the review prompt in a long preamble that lives in
``templates/`` rather than inline YAML. MMR 4.0.1 lets nothing remove an inherited
key, so the template is named *inside* ``prompt_wrapper`` (a user override of the wrapper
replaces it) rather than in a separate key that could never be unset. Only a whole-value
match counts; the template text itself holds ``{{prompt}}``.
"""

from __future__ import annotations

import re

from mmr.errors import ConfigError

PROMPT_TOKEN = "{{prompt}}"  # noqa: S105 - a placeholder, not a password
_TEMPLATE_TOKEN = re.compile(r"\{\{template:([A-Za-z0-9][A-Za-z0-9._-]*)\}\}")


def wrapper_template(wrapper: str) -> str | None:
    """The template file a wrapper names, or None for an inline wrapper."""
    match = _TEMPLATE_TOKEN.fullmatch(wrapper.strip())
    return match.group(1) if match else None


def resolve_prompt_wrapper(wrapper: str, channel: str = "") -> str:
    """The wrapper text to apply: the template's text for a template token, else ``wrapper``."""
    name = wrapper_template(wrapper)
    if name is None:
        return wrapper
    from mmr.resources import read_template

    try:
        return read_template(name)
    except FileNotFoundError:
        where = f"channels.{channel}.prompt_wrapper" if channel else "prompt_wrapper"
        raise ConfigError(
            f'{where}: template "{name}" not found; ship templates/{name} or set an inline '
            f"wrapper containing {PROMPT_TOKEN}"
        ) from None
