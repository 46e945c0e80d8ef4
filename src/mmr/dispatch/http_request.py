"""The body of an HTTP channel's chat request and what mmr reads back besides the content.

``request:`` adds ``max_tokens``, ``temperature``, ``seed``, a ``system``
message, structured output (``json_schema``, with ``json_object`` as the fallback a caller
retries with) and free ``extra_body`` fields; unset keys are not sent, so a plain channel's
body is MMR 4.0.1's (model, one user message, ``response_format`` for JSON parsers).
"""

from __future__ import annotations

import json
from typing import Any, Literal

from mmr.config.channel_schema import HttpRequest
from mmr.dispatch.findings_schema import FINDINGS_JSON_SCHEMA
from mmr.models import Telemetry
from mmr.secrets.redact import redact_text

JsonMode = Literal["none", "object", "schema"]
#: The most characters of a server's error message kept in a channel's log.
MAX_ERROR_CHARS = 300
_RESERVED = frozenset({"model", "messages"})


def json_mode(wants_json: bool, request: HttpRequest) -> JsonMode:
    """Which ``response_format`` the first request asks for."""
    if not wants_json:
        return "none"
    return "schema" if request.json_schema else "object"


def build_body(model: str, prompt: str, request: HttpRequest, mode: JsonMode) -> bytes:
    """The chat-completions body for ``prompt``."""
    messages: list[dict[str, str]] = []
    if request.system:
        messages.append({"role": "system", "content": request.system})
    messages.append({"role": "user", "content": prompt})
    body: dict[str, Any] = {"model": model, "messages": messages}
    for key in ("max_tokens", "temperature", "seed"):
        value = getattr(request, key)
        if value is not None:
            body[key] = value
    if mode == "object":
        body["response_format"] = {"type": "json_object"}
    elif mode == "schema":
        body["response_format"] = {"type": "json_schema", "json_schema": {
            "name": "review", "schema": FINDINGS_JSON_SCHEMA}}
    for key, value in request.extra_body.items():
        if key not in _RESERVED:
            body[key] = value
    return json.dumps(body, ensure_ascii=False).encode("utf-8")


def _json(body: bytes | None) -> Any:
    if not body:
        return None
    try:
        return json.loads(body.decode("utf-8", errors="replace"))
    except ValueError:
        return None


def error_message(body: bytes | None) -> str | None:
    """The server's own message of an error body (``{"error": {"message": ...}}``,
    ``{"message": ...}`` or ``{"detail": ...}``), one line, redacted and cut; None if none.
    A body that is not JSON is never kept: it may be a page that echoes the request."""
    data = _json(body)
    if not isinstance(data, dict):
        return None
    error = data.get("error")
    message: object = error.get("message") if isinstance(error, dict) else None
    if message is None:
        message = data.get("message") or data.get("detail")
    if not isinstance(message, str) or not message.strip():
        return None
    if isinstance(error, dict) and isinstance(error.get("code"), str) \
            and error["code"] not in message:
        message = f"{message} ({error['code']})"
    line = " ".join(message.split())
    if len(line) > MAX_ERROR_CHARS:
        line = line[:MAX_ERROR_CHARS] + "…"
    return redact_text(line)


def usage_telemetry(body: bytes | None) -> Telemetry | None:
    """``usage.prompt_tokens``/``completion_tokens`` of a chat-completions reply."""
    data = _json(body)
    usage = data.get("usage") if isinstance(data, dict) else None
    if not isinstance(usage, dict):
        return None
    figures = {name: usage.get(key) for name, key in
               (("input_tokens", "prompt_tokens"), ("output_tokens", "completion_tokens"))}
    kept = {k: v for k, v in figures.items()
            if isinstance(v, int | float) and not isinstance(v, bool)}
    return Telemetry.model_validate(kept) if kept else None


def served_models(body: bytes | None) -> list[str] | None:
    """The ids of a ``/v1/models`` listing (``{"data": [{"id": ...}]}``); None if not one."""
    data = _json(body)
    entries = data.get("data") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        return None
    ids = [e["id"] for e in entries if isinstance(e, dict) and isinstance(e.get("id"), str)]
    return ids or None
