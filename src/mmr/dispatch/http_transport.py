"""One HTTP exchange under a hard deadline, never raising for the network's failures.

The single place HTTP channels touch httpx (imported lazily: it costs ~75 ms, which a
review with only subprocess channels should not pay). Its rules:

- redirects are never followed (a 3xx is the final answer), so a key is never forwarded
  to another host; TLS certificates are verified; ``HTTP(S)_PROXY``/``NO_PROXY`` and
  ``SSL_CERT_FILE``/``SSL_CERT_DIR`` are honoured (``trust_env``);
- one deadline covers connecting, sending, the headers **and** the body
  (``anyio.move_on_after``), with ``httpx.Timeout`` as a backstop;
- a body is read only when the caller asks for it (a 200 reply); any other response is
  closed unread, because a hostile endpoint can echo the request's credentials back.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import anyio

ExchangeOutcome = Literal["response", "timeout", "error"]


@dataclass(frozen=True, slots=True)
class Exchange:
    """How one request ended. ``error`` names the transport failure (unscrubbed)."""

    outcome: ExchangeOutcome
    status: int | None = None
    body: bytes | None = None
    error: str | None = None
    #: What kind of transport failure (see :func:`failure_kind`).
    kind: str | None = None


_CAUSE_KINDS: tuple[tuple[str, str], ...] = (
    ("ConnectionRefusedError", "connection refused"), ("gaierror", "DNS lookup failed"),
    ("SSLError", "TLS failure"), ("SSLCertVerificationError", "TLS failure"),
)
_TEXT_KINDS: tuple[tuple[str, str], ...] = (
    ("CERTIFICATE_VERIFY_FAILED", "TLS failure"), ("SSL", "TLS failure"),
    ("Connection refused", "connection refused"), ("Errno 111", "connection refused"),
    ("Name or service not known", "DNS lookup failed"),
    ("Temporary failure in name resolution", "DNS lookup failed"),
    ("getaddrinfo", "DNS lookup failed"), ("nodename nor servname", "DNS lookup failed"),
)


def failure_kind(exc: BaseException) -> str:
    """The kind of a transport failure (``invalid URL``, ``connection refused``, ``DNS lookup
    failed``, ``TLS failure``): by the exception types in its cause chain, else by words in
    its message; ``connection failed`` otherwise."""
    import httpx

    if isinstance(exc, httpx.InvalidURL | httpx.UnsupportedProtocol | ValueError):
        return "invalid URL"
    chain: list[BaseException] = []
    seen: BaseException | None = exc
    while seen is not None and len(chain) < 10:
        chain.append(seen)
        seen = seen.__cause__ or seen.__context__
    names = {cls.__name__ for link in chain for cls in type(link).__mro__}
    for name, kind in _CAUSE_KINDS:
        if name in names:
            return kind
    text = " ".join(str(link) for link in chain)
    return next((kind for needle, kind in _TEXT_KINDS if needle in text), "connection failed")


async def exchange(method: str, url: str, *, headers: tuple[tuple[bytes, bytes], ...],
                   content: bytes | None, timeout_s: float,
                   read_body: Callable[[int], bool]) -> Exchange:
    """Send one request and settle it; a body is read only when ``read_body(status)``."""
    import httpx

    client = httpx.AsyncClient(follow_redirects=False, verify=True, trust_env=True,
                               timeout=httpx.Timeout(timeout_s))
    try:
        with anyio.move_on_after(timeout_s):
            async with client.stream(method, url, headers=list(headers), content=content,
                                     timeout=httpx.Timeout(timeout_s),
                                     follow_redirects=False) as response:
                status = response.status_code
                body = await response.aread() if read_body(status) else None
            return Exchange("response", status, body)
        return Exchange("timeout")
    except httpx.TimeoutException:
        return Exchange("timeout")
    except (httpx.HTTPError, httpx.InvalidURL, httpx.StreamError, OSError, ValueError) as exc:
        return Exchange("error", error=_describe(exc), kind=failure_kind(exc))
    finally:
        with anyio.CancelScope(shield=True):
            await client.aclose()


def _describe(exc: BaseException) -> str:
    """``<ExceptionClass>: <message>``, the message cut short (it is only a hint)."""
    message = " ".join(str(exc).split())[:300]
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__
