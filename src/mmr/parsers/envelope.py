"""Dig the model's JSON out of a CLI envelope, used by critique."""

from __future__ import annotations

from typing import Any

from mmr.parsers.scanners import extract_first_object
from mmr.parsers.text import decode_candidate, strip_markdown_fences

#: Envelope keys whose string value may hold the model's reply, in the order tried.
ENVELOPE_KEYS = ("result", "text", "response", "output", "content", "message")


def extract_model_json(raw: str, depth: int = 2) -> Any:
    """The first JSON object in ``raw``, unwrapped through up to ``depth`` envelope levels.

    None when ``raw`` holds no decodable object. An envelope key whose string holds no
    JSON is passed over for the next key.
    """
    try:
        value = decode_candidate(extract_first_object(strip_markdown_fences(raw)))
    except Exception:
        return None
    if isinstance(value, dict) and depth > 0:
        for key in ENVELOPE_KEYS:
            inner = value.get(key)
            if isinstance(inner, str):
                unwrapped = extract_model_json(inner, depth - 1)
                if unwrapped is not None:
                    return unwrapped
    return value
