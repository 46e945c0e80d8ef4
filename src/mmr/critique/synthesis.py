"""The editorial synthesis pass: when it runs, what it is asked, what it answers.

It runs only when all hold: not ``--no-synthesis``; at least two reconciled items; at
least two channels completed; the config has a ``claude`` subprocess channel with a
command that is enabled and not in ``channels_disabled`` (MMR 4.0.1 uses
it even when the user switched it off); and that command is installed and passes its
auth check. Any failure leaves the critique without a synthesis, never failed.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from mmr.config.schema import MmrConfig, SubprocessChannel
from mmr.config.selection import is_effective
from mmr.critique.models import ReconciledItem, Split, SplitPosition, SynthesisResult
from mmr.critique.parser import text_of
from mmr.parsers import extract_model_json
from mmr.prompt.assemble import diff_fence as fence_for
from mmr.resources import read_template

SYNTHESIZER = "claude"
SYNTHESIS_CHANNEL = "critique-synthesis"
SYNTHESIS_TEMPLATE = "critique/synthesis-prompt.md"
MIN_ITEMS = 2
MIN_COMPLETED = 2


def synthesizer_channel(config: MmrConfig) -> SubprocessChannel | None:
    """The ``claude`` channel when it can be asked at all (before install and auth)."""
    channel = config.channels.get(SYNTHESIZER)
    if not isinstance(channel, SubprocessChannel) or not (channel.command or "").strip():
        return None
    return channel if is_effective(config, SYNTHESIZER) else None


def skip_reason(*, requested: bool, items: int, completed: int,
                channel: SubprocessChannel | None) -> str | None:
    """Why synthesis will not run (before the install and auth check), or None."""
    if not requested:
        return "--no-synthesis"
    if items < MIN_ITEMS:
        return f"fewer than {MIN_ITEMS} items"
    if completed < MIN_COMPLETED:
        return f"fewer than {MIN_COMPLETED} channels completed"
    if channel is None:
        return f"no enabled {SYNTHESIZER} subprocess channel"
    return None


def item_for_synthesis(item: ReconciledItem) -> dict[str, Any]:
    """The fields the synthesizer sees, in order (no shingle)."""
    data: dict[str, Any] = {"id": item.id, "kind": item.kind, "theme": item.theme,
                            "observation": item.observation}
    if item.recommendation:
        data["recommendation"] = item.recommendation
    data.update(sources=list(item.sources), agreement=item.agreement)
    return data


def synthesis_prompt(items: Sequence[ReconciledItem]) -> str:
    """The template, then ``## Reconciled critique items`` and the items as fenced JSON."""
    body = json.dumps([item_for_synthesis(i) for i in items], indent=2, ensure_ascii=False)
    fence = fence_for(body)
    template = read_template(SYNTHESIS_TEMPLATE).strip()
    return f"{template}\n\n## Reconciled critique items\n{fence}json\n{body}\n{fence}"


def _strings(value: object) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _position(raw: object) -> SplitPosition | None:
    if not isinstance(raw, dict) or not text_of(raw.get("stance")):
        return None
    return SplitPosition(stance=text_of(raw.get("stance")), item_ids=_strings(raw.get("item_ids")),
                         sources=_strings(raw.get("sources")))


def _split(raw: object) -> Split | None:
    if not isinstance(raw, dict):
        return None
    listed = raw.get("positions")
    found = (_position(p) for p in (listed if isinstance(listed, list) else []))
    positions = [p for p in found if p is not None]
    if len(positions) < 2:
        return None
    return Split(theme=text_of(raw.get("theme")) or "general", positions=positions,
                 crux=text_of(raw.get("crux")))


def parse_synthesis(raw: str | None) -> SynthesisResult:
    """The synthesizer's reply; anything unparsable gives no splits and no synthesis."""
    value = extract_model_json(raw) if raw else None
    if not isinstance(value, dict):
        return SynthesisResult()
    splits_raw = value.get("splits")
    splits = [s for s in map(_split, splits_raw if isinstance(splits_raw, list) else [])
              if s is not None]
    return SynthesisResult(splits=tuple(splits), synthesis=text_of(value.get("synthesis")) or None)
