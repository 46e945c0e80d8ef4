"""The context length an HTTP channel's server reports, asked once before prompts are built:
vLLM's ``max_model_len`` in ``/v1/models``, else llama.cpp's ``/props`` ``n_ctx`` (what it
runs with), else ``meta.n_ctx_train``. Silence or no answer in time: the config decides."""

from __future__ import annotations

import json
import os
from typing import Any

import anyio

from mmr.config.channel_schema import HttpChannel
from mmr.dispatch.http_request import served_model_entry
from mmr.dispatch.http_security import ApiKeyMissingError, UnsafeHeaderError, prepare_headers
from mmr.dispatch.http_transport import exchange

ASK_TIMEOUT_S = 3.0  #: for each of the (at most two) questions


def _get(url: str, headers: tuple[tuple[bytes, bytes], ...]) -> bytes | None:
    return anyio.run(lambda: exchange("GET", url, headers=headers, content=None,
                                      timeout_s=ASK_TIMEOUT_S, read_body=lambda s: s == 200)).body


def _dig(data: Any, *keys: str) -> int | None:
    """The positive integer at ``keys`` down nested mappings, else None."""
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return data if isinstance(data, int) and not isinstance(data, bool) and data > 0 else None


def server_context(channel: HttpChannel) -> int | None:
    """The server's context length in tokens, or None when it does not say."""
    try:
        headers = prepare_headers(channel, os.environ).headers
    except (ApiKeyMissingError, UnsafeHeaderError):
        return None
    entry = served_model_entry(_get(channel.probe_url, headers), channel.model)
    found = json.loads(entry) if entry else {}
    if (served := _dig(found, "max_model_len")) is not None:
        return served
    root = channel.endpoint.rstrip("/").removesuffix("/chat/completions").removesuffix("/v1")
    try:
        props = json.loads(_get(root + "/props", headers) or b"{}")
    except ValueError:
        props = {}
    return (_dig(props, "default_generation_settings", "n_ctx") or _dig(props, "n_ctx")
            or _dig(found, "meta", "n_ctx_train"))
