"""HTTP channels (``kind: http``): one OpenAI-style chat request per attempt.

:func:`run_http_channel` POSTs the plan's prompt to the channel's ``endpoint`` and settles
it as this table says:

================================  ============  ==========================================
what happened                     status        ``error`` (also the first line of ``log``)
================================  ============  ==========================================
HTTP 200                          completed     — (``content``: the reply, see below)
HTTP 200 cut at the token limit   failed        ``reply cut off at the model's token limit …``
HTTP 401 or 403                   auth_failed   ``HTTP 401`` (log: + the server's message)
any other status (3xx included)   failed        ``HTTP <code>`` (log: + the server's message)
the deadline hit                  timeout       ``request timed out after <t>s``
connection, TLS or URL failure    failed        ``request failed: <kind>`` (below)
a header refused before sending   failed        ``request failed``
``api_key_env`` unset or empty    auth_failed   ``API key env var <NAME> not set``
================================  ============  ==========================================

``<kind>`` is ``connection refused``, ``DNS lookup failed``, ``TLS failure``,
``invalid URL`` or ``connection failed``, so a report says why, not just that it failed.
Only 401 and 403 mean the credentials were refused.

``content`` is ``choices[0].message.content`` when the 200 body is an OpenAI envelope with a
string there, else the whole body as text (the parser then reports what is wrong with it).
The key never appears in any field (:mod:`mmr.dispatch.http_security`). Nothing here
touches the job store: the runner records the result. The auth probe lives in
:mod:`mmr.dispatch.http_probe`.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass

from mmr.config.channel_schema import HttpChannel
from mmr.dispatch.http_probe import AUTH_STATUSES
from mmr.dispatch.http_request import (
    JsonMode,
    build_body,
    error_message,
    json_mode,
    usage_telemetry,
)
from mmr.dispatch.http_security import (
    ApiKeyMissingError,
    PreparedHeaders,
    UnsafeHeaderError,
    display_url,
    prepare_headers,
)
from mmr.dispatch.http_transport import Exchange, exchange
from mmr.dispatch.plan import ChannelPlan
from mmr.log import get_logger
from mmr.models import ChannelStatus, Telemetry
from mmr.parsers.registry import is_registered
from mmr.parsers.specs import ParserSpec, UnwrapJsonpathSpec
from mmr.parsers.validate import js_number_text

REQUEST_FAILED = "request failed"
CUT_OFF = ("reply cut off at the model's token limit (finish_reason: length); raise "
           "request.max_tokens, or review a smaller diff")


@dataclass(frozen=True, slots=True)
class HttpResult:
    """How one HTTP attempt settled; every text field is free of the key."""

    status: ChannelStatus
    content: str | None  #: the reply text, exactly when ``status == "completed"``
    error: str | None  #: the synthetic text of the table above (None when completed)
    log: str  #: for ``<ch>.log``: ``error`` plus the server's message or a transport hint
    telemetry: Telemetry | None = None  #: the reply's ``usage``


def wants_json_reply(spec: ParserSpec) -> bool:
    """Whether the request adds ``response_format: {"type": "json_object"}``.

    Every named parser reads a JSON reply, so each asks for one (``default-last`` too, which
    MMR 4.0.1 forgot); an unknown name, which falls back to ``default``, does not, as in
    MMR 4.0.1. Of the object specs only ``unwrap-jsonpath`` reads JSON.
    """
    if isinstance(spec, str):
        return is_registered(spec)
    return isinstance(spec, UnwrapJsonpathSpec)


def extract_content(body: bytes) -> str:
    """``choices[0].message.content`` when it is a string, else the body text."""
    text = body.decode("utf-8", errors="replace")
    try:
        content = json.loads(text)["choices"][0]["message"]["content"]
    except (ValueError, LookupError, TypeError):
        return text
    return content if isinstance(content, str) else text


def _schema_refused(result: Exchange) -> bool:
    """HTTP 400, or a 500 whose message names the schema (llama.cpp's server answers an
    unsupported ``response_format`` so)."""
    message = (error_message(result.body) or "").lower() if result.status == 500 else ""
    return result.status == 400 or "schema" in message or "response_format" in message


def _finish_reason(body: bytes | None) -> object:
    try:
        return json.loads(body or b"")["choices"][0].get("finish_reason")
    except (ValueError, LookupError, TypeError, AttributeError):
        return None


def timed_out_text(timeout_s: float) -> str:
    """``request timed out after 2s`` — the number as JavaScript prints it."""
    return f"request timed out after {js_number_text(timeout_s)}s"


def _failed(status: ChannelStatus, error: str, hint: str | None = None) -> HttpResult:
    log = error if hint is None else f"{error}\n{hint}"
    return HttpResult(status, None, error, log)


async def run_http_channel(plan: ChannelPlan) -> HttpResult:
    """Send ``plan.prompt`` to the channel's endpoint within ``plan.timeout_s`` and settle it.

    Never raises for a network, server or header problem; those are results.
    """
    channel = plan.channel
    if not isinstance(channel, HttpChannel):
        raise TypeError(f"run_http_channel needs an http channel, got {type(channel).__name__}")
    started = time.monotonic()
    try:
        prepared = prepare_headers(channel, os.environ, base={"content-type": "application/json"})
    except ApiKeyMissingError as exc:
        return _failed("auth_failed", str(exc))
    except UnsafeHeaderError as exc:
        return _failed("failed", REQUEST_FAILED, hint=str(exc))
    mode = json_mode(wants_json_reply(plan.output_parser), channel.request)

    async def post(as_json: JsonMode) -> Exchange:
        left = max(plan.timeout_s - (time.monotonic() - started), 0.001)
        return await exchange(
            "POST", channel.endpoint, headers=prepared.headers,
            content=build_body(channel.model, plan.prompt, channel.request, as_json),
            timeout_s=left, read_body=lambda status: status == 200 or status >= 400,
        )

    result = await post(mode)
    if mode == "schema" and _schema_refused(result):  # no structured output here: plain JSON
        result = await post("object")
    get_logger(__name__).debug("http.channel", channel=plan.name, outcome=result.outcome,
                               url=display_url(channel.endpoint), http_status=result.status,
                               elapsed_s=round(time.monotonic() - started, 3))
    return _settle(result, prepared, plan.timeout_s)


def _settle(result: Exchange, prepared: PreparedHeaders, timeout_s: float) -> HttpResult:
    """The status and error text of the module docstring's table."""
    status = result.status
    if result.outcome == "timeout":
        return _failed("timeout", timed_out_text(timeout_s))
    if result.outcome == "error" or status is None:
        hint = prepared.hint(result.error) if result.error else None
        error = f"{REQUEST_FAILED}: {result.kind}" if result.kind else REQUEST_FAILED
        return _failed("failed", error, hint)
    if status == 200 and _finish_reason(result.body) == "length":
        return _failed("failed", CUT_OFF)
    if status == 200:
        # A reply that quotes the key would otherwise reach findings, reports and CI logs.
        content = prepared.scrub(extract_content(result.body or b""))
        return HttpResult("completed", content, None, "", usage_telemetry(result.body))
    message = error_message(result.body)
    return _failed("auth_failed" if status in AUTH_STATUSES else "failed", f"HTTP {status}",
                   prepared.scrub(message) if message else None)
