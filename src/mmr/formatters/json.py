"""``--format json``: the results document exactly as MMR 4.0.1 prints it.

Two-space indentation, non-ASCII written raw, absent optional fields omitted, no envelope.
Lone surrogates (undecodable bytes that reached a description) are written as ``\\udXXX``
escapes, as ``JSON.stringify`` does, so the output is always valid UTF-8.
"""

from __future__ import annotations

import json
import re
from typing import Any

from mmr.formatters.labels import is_gate_document
from mmr.models import ReconciledResults

_SURROGATES = re.compile("([\ud800-\udbff][\udc00-\udfff])|([\ud800-\udfff])")

#: MMR 4.0.1's key order for the ratification-gate document; mmr's additive keys
#: (``job_id: null``, ``per_channel: {}``, zeroed ``metadata``) follow it.
GATE_KEY_ORDER = ("verdict", "fix_threshold", "reconciled_findings", "advisory_count", "approved",
                  "summary", "trust_mode", "proposed_acks", "proposed_config_change")


def render_json(results: ReconciledResults) -> str:
    """The JSON document, without a trailing newline."""
    return dumps(results_document(results))


def results_document(results: ReconciledResults) -> dict[str, Any]:
    """The plain-JSON form of a verdict document, keys in MMR 4.0.1's order."""
    data = results.to_json_dict()
    if not is_gate_document(results):
        return data
    ordered = {key: data[key] for key in GATE_KEY_ORDER if key in data}
    ordered.update((key, value) for key, value in data.items() if key not in ordered)
    return ordered


def dumps(value: Any) -> str:
    """``JSON.stringify(value, null, 2)``: 2-space indent, non-ASCII raw, surrogate-safe."""
    text = json.dumps(value, indent=2, ensure_ascii=False)
    if has_surrogates(text):
        return _SURROGATES.sub(_fix_surrogates, text)
    return text


def has_surrogates(text: str) -> bool:
    """Whether ``text`` holds a surrogate code point (cheaper than a regex over megabytes:
    UTF-8 encoding fails on exactly those, and ASCII text has none)."""
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _fix_surrogates(match: re.Match[str]) -> str:
    pair = match.group(1)
    if pair is not None:
        # Two halves held as separate code points are one character to JavaScript.
        return pair.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
    return f"\\u{ord(match.group(2)):04x}"
