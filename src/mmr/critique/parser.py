"""One channel's critique reply → its items and summary.

The model's JSON is dug out of the CLI's envelope (``extract_model_json``).
Lenient by design: an entry without an observation is dropped, a missing theme reads
``general``, an unknown kind becomes ``consideration``. A reply with nothing usable gets
the failure summary, and the channel still counts as completed: critique never fails.
"""

from __future__ import annotations

from typing import Any

from mmr.critique.models import KIND_ORDER, CritiqueItem, ItemKind, ParsedCritique
from mmr.parsers import extract_model_json

FAILED = "Failed to parse critique output: "
PARSE_FAILURE = FAILED + "no items found"
REVIEW_SHAPED = (FAILED + 'a code review ("findings"), not a critique ("items"); does the '
                 "channel's prompt_wrapper ask for a review?")
DEFAULT_THEME = "general"
DEFAULT_KIND: ItemKind = "consideration"


def text_of(value: object) -> str:
    """A string field of the model's JSON, trimmed; "" for anything else."""
    return value.strip() if isinstance(value, str) else ""


def _kind(value: object) -> ItemKind:
    text = text_of(value).lower()
    return next((kind for kind in KIND_ORDER if kind == text), DEFAULT_KIND)


def parse_item(entry: object) -> CritiqueItem | None:
    """One ``items`` entry, or None when it has no non-empty string ``observation``."""
    if not isinstance(entry, dict):
        return None
    observation = text_of(entry.get("observation"))
    if not observation:
        return None
    return CritiqueItem(kind=_kind(entry.get("kind")),
                        theme=text_of(entry.get("theme")) or DEFAULT_THEME, observation=observation,
                        recommendation=text_of(entry.get("recommendation")) or None)


def parse_critique_reply(raw: str | None) -> ParsedCritique:
    """Parse a raw reply; a missing reply (no output file) reads as an empty one."""
    value: Any = extract_model_json(raw) if raw else None
    if not isinstance(value, dict):
        return ParsedCritique(summary=PARSE_FAILURE)
    entries = value.get("items")
    found = (parse_item(entry) for entry in (entries if isinstance(entries, list) else []))
    items = tuple(item for item in found if item is not None)
    summary = text_of(value.get("summary")) or None
    if not items and "items" not in value and "findings" in value:
        summary = REVIEW_SHAPED
    elif not items and summary is None:
        summary = PARSE_FAILURE
    return ParsedCritique(items=items, summary=summary)
