"""The auth probe of an HTTP channel: one request over the wire.

``check_method`` (default ``GET``) goes to the channel's probe URL — ``auth.check_endpoint``,
else the endpoint with ``/chat/completions`` turned into ``/models`` — with the channel's
``headers`` and api-key header, no body and no content-type, and no retry:

===========================================  =========  ========
what happened                                result     recovery
===========================================  =========  ========
a status listed in ``auth.check_status_ok``  ok
401 or 403 (the credentials were refused)    failed     yes
any other status                             failed*    no
a 200 model list without the channel's model failed     yes (mmr addition)
``api_key_env`` unset or empty (no request)  failed     yes
the deadline (``auth.timeout``) hit          timeout    no
refused, DNS, TLS, bad URL or header         failed*    no
===========================================  =========  ========

``failed*``: the channel becomes ``failed``, not ``auth_failed`` — the endpoint
could not be reached or answered oddly, which says nothing about the key — and
``detail`` names the kind (``request failed: connection refused``, ``HTTP 404``).

Network failures carry no recovery on purpose: "log in again" would mislead. The recovery
is redacted; ``detail`` says what happened and never holds the key.
"""

from __future__ import annotations

import os

from mmr.config.channel_schema import HttpChannel
from mmr.dispatch.http_request import served_model_entry, served_models
from mmr.dispatch.http_security import (
    ApiKeyMissingError,
    PreparedHeaders,
    UnsafeHeaderError,
    display_url,
    is_token,
    prepare_headers,
)
from mmr.dispatch.http_transport import Exchange, exchange
from mmr.dispatch.plan import AuthResult
from mmr.formatters.sanitize import visible_controls
from mmr.log import get_logger
from mmr.parsers.validate import js_number_text
from mmr.secrets.redact import redact_text

#: The only statuses that mean "your credentials were refused".
AUTH_STATUSES = frozenset({401, 403})


async def probe_http_channel(name: str, channel: HttpChannel) -> AuthResult:
    """Probe ``channel``'s credentials over the wire within ``auth.timeout``; never raises for
    the network's failures."""
    recovery = None if channel.auth.recovery is None else redact_text(channel.auth.recovery)
    deadline = channel.auth.timeout
    method = channel.auth.check_method
    if not is_token(method):
        return AuthResult("failed", detail="auth.check_method is not a valid HTTP method")
    try:
        prepared = prepare_headers(channel, os.environ)
    except ApiKeyMissingError as exc:
        return AuthResult("failed", recovery=recovery, detail=str(exc))
    except UnsafeHeaderError as exc:
        return AuthResult("failed", detail=str(exc))
    url = channel.probe_url
    result = await exchange(method, url, headers=prepared.headers, content=None, timeout_s=deadline,
                            read_body=lambda status: status == 200)
    get_logger(__name__).debug("http.probe", channel=name, method=method, url=display_url(url),
                               outcome=result.outcome, http_status=result.status)
    return _judge(result, name, channel, recovery, deadline=deadline, prepared=prepared)


def _model_listed(name: str, channel: HttpChannel, body: bytes | None) -> AuthResult:
    """mmr addition: a server that lists its models must list the channel's."""
    served = served_models(body)
    if served is None or channel.model in served:
        return AuthResult("ok", served_model=served_model_entry(body, channel.model))
    # Model ids are the server's words: control and bidi characters shown, never sent on.
    shown = ", ".join(visible_controls(model) for model in served[:10])
    shown += ", …" if len(served) > 10 else ""
    return AuthResult("failed", detail=f'model "{channel.model}" is not served',
                      recovery=redact_text(f'the server does not serve model "{channel.model}"; '
                                           f"set channels.{name}.model to one of: {shown}"))


def _judge(result: Exchange, name: str, channel: HttpChannel, recovery: str | None, *,
           deadline: float, prepared: PreparedHeaders) -> AuthResult:
    """The probe's answer for a settled exchange (the table above)."""
    if result.outcome == "timeout":
        return AuthResult("timeout", detail=f"auth probe {channel.auth.check_method} "
                          f"{display_url(channel.probe_url)} timed out after "
                          f"{js_number_text(deadline)}s (auth.timeout)")
    if result.outcome == "error" or result.status is None:
        hint = prepared.hint(result.error) if result.error else None
        kind = f": {result.kind}" if result.kind else ""
        return AuthResult("failed", detail=f"request failed{kind}" + (f": {hint}" if hint else ""),
                          channel_status="failed")
    if result.status in channel.auth.check_status_ok:
        return _model_listed(name, channel, result.body)
    if result.status in AUTH_STATUSES:
        return AuthResult("failed", recovery=recovery, detail=f"HTTP {result.status}")
    return AuthResult("failed", detail=f"auth probe got HTTP {result.status}",
                      channel_status="failed")

