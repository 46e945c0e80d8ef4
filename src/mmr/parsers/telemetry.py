"""Usage figures from a channel's raw envelope: tokens, context window, cost, turns."""

from __future__ import annotations

import math
from collections.abc import Mapping

from mmr.parsers.jsonpath import resolve_telemetry_path
from mmr.parsers.unwrap import decode_envelope

TELEMETRY_KEYS = ("context_window", "input_tokens", "output_tokens", "cost_usd", "turns")


def extract_telemetry(raw: str, paths: Mapping[str, str]) -> dict[str, float]:
    """Each configured path that resolves to a finite number, under its key; others dropped.

    Never raises: telemetry is extracted whatever the parse gives.
    """
    try:
        envelope = decode_envelope(raw)
    except Exception:
        return {}
    figures: dict[str, float] = {}
    for key, path in paths.items():
        try:
            value = resolve_telemetry_path(envelope, path)
        except ValueError:
            continue
        is_number = isinstance(value, int | float) and not isinstance(value, bool)
        if is_number and math.isfinite(value):
            figures[key] = value
    return figures
