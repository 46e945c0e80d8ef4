"""The credential boundary of HTTP channels.

Everything that touches the API key lives here, so the rest of the HTTP code never holds
it in anything it could print:

- :func:`prepare_headers` builds the request headers: the channel's static ``headers``,
  then ``<api_key_header>: <api_key_prefix><key>`` with the key read from the env var
  named by ``api_key_env``. The api-key header is authoritative: any static
  header with the same name in another case is dropped, so a request never carries two
  credentials.
- Every header name must be an RFC 7230 token and every value free of CR, LF, NUL and
  other control characters. A violation is refused **before** anything is
  sent, with a message that names the header but never shows its value — the HTTP client's
  own errors would echo the value, and the value may be the key.
- :func:`scrub` removes the key from any text mmr keeps (a reply, a diagnostic), and
  :func:`display_url` shows an endpoint without userinfo or query (where keys hide too).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from mmr.config.channel_schema import HttpChannel
from mmr.secrets.redact import REDACTED, redact_text

#: RFC 7230 section 3.2.6 ``token``: what a header name (and a method) may be made of.
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
#: Fetch normalises values by stripping these at both ends; h11 refuses them there.
_EDGE_WHITESPACE = " \t"
#: A key shorter than this is not scrubbed from text: it would mangle ordinary words, and
#: no real provider issues keys that short.
MIN_SCRUB_LENGTH = 8


class ApiKeyMissingError(Exception):
    """``api_key_env`` names a variable that is unset or empty."""

    def __init__(self, env_name: str) -> None:
        super().__init__(f"API key env var {env_name} not set")
        self.env_name = env_name


class UnsafeHeaderError(Exception):
    """A header name or value that must not be sent; the message never holds the value."""


@dataclass(frozen=True, slots=True)
class PreparedHeaders:
    """Validated, encoded request headers, and the key they carry (both kept out of ``repr``)."""

    headers: tuple[tuple[bytes, bytes], ...] = field(repr=False)
    secret: str | None = field(default=None, repr=False)

    def scrub(self, text: str) -> str:
        return scrub(text, self.secret)

    def hint(self, text: str) -> str:
        """A diagnostic safe to keep: the key scrubbed, and wholly ``<redacted>`` when it
        embeds anything secret-shaped (a ``?api_key=…`` URL in an error message)."""
        return redact_text(self.scrub(text))


def scrub(text: str, secret: str | None) -> str:
    if not secret or len(secret) < MIN_SCRUB_LENGTH:
        return text
    return text.replace(secret, REDACTED)


def is_token(text: str) -> bool:
    """Whether ``text`` is a non-empty RFC 7230 token (a valid header name or method)."""
    return _TOKEN.fullmatch(text) is not None


def display_url(url: str) -> str:
    """``scheme://host[:port]/path`` of ``url``: userinfo, query and fragment left out."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port is not None else ""
    except ValueError:
        return "<invalid URL>"
    if not parts.scheme or not host:
        return "<invalid URL>"
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    return f"{parts.scheme}://{host}{port}{parts.path}"


def prepare_headers(channel: HttpChannel, env: Mapping[str, str], *,
                    base: Mapping[str, str] | None = None) -> PreparedHeaders:
    """``base``, then the channel's ``headers``, then the api-key header, all validated.

    A later name replaces an earlier one case-insensitively. Raises
    :class:`ApiKeyMissingError` when the key's env var is unset or empty, and
    :class:`UnsafeHeaderError` when a name or value may not be sent.
    """
    pairs: list[tuple[str, str, str]] = []  # (name, value, how to refer to it in errors)
    for name, value in (base or {}).items():
        _put(pairs, name, value, f'header "{name}"')
    for position, (name, value) in enumerate((channel.headers or {}).items(), start=1):
        label = f'header "{name}"' if is_token(name) else f"header #{position} of headers"
        _put(pairs, name, value, label)
    secret: str | None = None
    if channel.api_key_env:
        # Edge spaces would sit between the prefix and the key; a key never has them.
        secret = (env.get(channel.api_key_env) or "").strip(_EDGE_WHITESPACE) or None
        if secret is None:
            raise ApiKeyMissingError(channel.api_key_env)
        name = channel.api_key_header
        label = (f'api key header "{name}" (value from env var {channel.api_key_env})'
                 if is_token(name) else "api_key_header")
        _put(pairs, name, channel.api_key_prefix + secret, label)
    return PreparedHeaders(tuple(_encode(name, value, label) for name, value, label in pairs),
                           secret)


def _put(pairs: list[tuple[str, str, str]], name: str, value: str, label: str) -> None:
    lowered = name.lower()
    pairs[:] = [pair for pair in pairs if pair[0].lower() != lowered]
    pairs.append((name, value, label))


def _encode(name: str, value: str, label: str) -> tuple[bytes, bytes]:
    """The wire form of one header, or :class:`UnsafeHeaderError` naming ``label``."""
    if not is_token(name):
        raise UnsafeHeaderError(f"{label} is not a valid HTTP header name (letters, digits "
                                "and !#$%&'*+-.^_`|~ only); refused before sending")
    value = value.strip(_EDGE_WHITESPACE)
    problem = _value_problem(value)
    if problem is not None:
        raise UnsafeHeaderError(f"{label} has a value that contains {problem}; "
                                "refused before sending")
    return name.encode("ascii"), value.encode("latin-1")


def _value_problem(value: str) -> str | None:
    """What makes ``value`` unsendable (RFC 7230 field-value), or None when it is fine."""
    if "\r" in value or "\n" in value:
        return "a line break (CR or LF; a trailing newline in an env var is a common cause)"
    if "\0" in value:
        return "a NUL character"
    for char in value:
        code = ord(char)
        if (code < 0x20 and char != "\t") or code == 0x7F:
            return "a control character"
        if code > 0xFF:
            return "a character outside Latin-1"
    return None
