"""The context length an HTTP channel's server reports, asked once before prompts are built.

vLLM lists ``max_model_len`` in each ``/v1/models`` entry; llama.cpp's server answers
``/props`` with ``n_ctx`` (the context it was started with) and lists the model's training
context as ``meta.n_ctx_train``. A server that says neither, or cannot be reached in time,
leaves the channel's configured budget as it is.
"""

from __future__ import annotations

import json
import os
from typing import Any

import anyio

from mmr.config.channel_schema import HttpChannel
from mmr.dispatch.http_request import served_model_entry
from mmr.dispatch.http_security import ApiKeyMissingError, UnsafeHeaderError, prepare_headers
from mmr.dispatch.http_transport import exchange

#: Seconds each of the (at most two) questions may take.
ASK_TIMEOUT_S = 3.0


def _get(url: str, headers: tuple[tuple[bytes, bytes], ...]) -> Any:
    result = anyio.run(lambda: exchange("GET", url, headers=headers, content=None,
                                        timeout_s=ASK_TIMEOUT_S,
                                        read_body=lambda status: status == 200))
    try:
        return json.loads(result.body or b"null")
    except ValueError:
        return None


def _positive(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 \
        else None


def server_context(channel: HttpChannel) -> int | None:
    """The server's context length in tokens, or None when it does not say."""
    try:
        headers = prepare_headers(channel, os.environ).headers
    except (ApiKeyMissingError, UnsafeHeaderError):
        return None
    listing = _get(channel.probe_url, headers)
    entry = served_model_entry(json.dumps(listing).encode(), channel.model)
    found = json.loads(entry) if entry else {}
    served = _positive(found.get("max_model_len"))
    if served is not None:
        return served
    root = channel.endpoint.rstrip("/").removesuffix("/chat/completions").removesuffix("/v1")
    props = _get(root + "/props", headers)
    settings = props.get("default_generation_settings") if isinstance(props, dict) else None
    candidates = (settings.get("n_ctx") if isinstance(settings, dict) else None,
                  props.get("n_ctx") if isinstance(props, dict) else None,
                  (found.get("meta") or {}).get("n_ctx_train"))
    return next((n for n in map(_positive, candidates) if n is not None), None)
