"""Persona lenses: one perspective per channel, cycled.

``--lenses skeptic,pragmatist`` over three channels gives ``skeptic, pragmatist,
skeptic``. Names are matched case-insensitively against the built-ins, whose preambles
are ``templates/critique/lenses/<name>.md``; any other name gets a generic preamble that
quotes it. The report keeps the names as typed.
"""

from __future__ import annotations

from collections.abc import Sequence

from mmr.resources import read_template

BUILTIN_LENSES = ("skeptic", "simplifier", "user-advocate", "pragmatist", "security", "scale")
_LENS_DIR = "critique/lenses"
_GENERIC = f"{_LENS_DIR}/_generic.md"
_LENS_PLACEHOLDER = "{{lens}}"


def parse_lenses(value: str | None) -> list[str]:
    """The comma-separated ``--lenses`` value, trimmed, empties dropped."""
    if value is None:
        return []
    return [name.strip() for name in value.split(",") if name.strip()]


def assign_lenses(lenses: Sequence[str], channels: Sequence[str]) -> dict[str, str]:
    """Channel → lens, cycling through ``lenses`` in channel order (empty without lenses)."""
    if not lenses:
        return {}
    return {channel: lenses[index % len(lenses)] for index, channel in enumerate(channels)}


def lens_preamble(name: str) -> str:
    """The text under ``## Your lens`` for ``name``."""
    key = name.strip().lower()
    if key in BUILTIN_LENSES:
        return read_template(f"{_LENS_DIR}/{key}.md").strip()
    return read_template(_GENERIC).strip().replace(_LENS_PLACEHOLDER, name.strip())
