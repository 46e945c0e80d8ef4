"""Credentials known by their shape alone, with no telling name beside them.

- a Discord bot token (``<user id in base64>.<timestamp>.<HMAC>``);
- a random-looking value: a quoted string or an assigned word of 24 to 200 token
  characters mixing upper case, lower case and digits whose entropy over its alphabet is that
  of random text (the threshold is calibrated on the credential corpus and on third-party
  code, see benchmarks/bench_secrets.py); hex alone is not enough (digests and ids are hex);
- a ``.pgpass`` line (``host:port:database:user:password``);
- a base64 blob that decodes to text holding a credential (a ``.env`` copied encoded):
  the decoded text is scanned line by line as a ``.env`` file, and the blob goes whole.
"""

from __future__ import annotations

import base64
import binascii
import itertools
import re
from collections.abc import Callable
from functools import cache
from typing import NamedTuple

from mmr.secrets.assignments import is_pgpass_file, is_secret_value, shannon_entropy


class BareSpan(NamedTuple):
    start: int
    end: int
    kind: str


#: Entropy (bits a character) a random-looking value must reach: random base62 of 24
#: characters averages 4.4, identifiers and words stay below 4.0.
ENTROPY_THRESHOLD = 4.1
_MIN_LENGTH = 24


@cache
def _patterns() -> tuple[re.Pattern[str], ...]:
    return (
        # Discord: base64 of a snowflake id (starts M, N or O), a 6-character timestamp,
        # an HMAC of 27 or more.
        re.compile(r"(?<![A-Za-z0-9_.-])[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}"
                   r"\.[A-Za-z0-9_-]{27,40}(?![A-Za-z0-9_.-])"),
        # A candidate value: token characters between quotes, or after ``=``/``:``.
        re.compile(r"""(?:(?<=["'`])|(?<=[=:][ \t])|(?<=[=:]))"""
                   r"""(?P<value>[A-Za-z0-9+/_~.=-]{24,200})(?=["'`]|[ \t,;)]|$)"""),
        # .pgpass: host:port:database:user:password, the port a number or ``*``.
        re.compile(r"^[ \t]*[A-Za-z0-9.*_-]+:(?:\d{1,5}|\*):[^:\s]+:[^:\s]+:"
                   r"(?P<value>[^\s'\"]{4,200})[ \t]*$"),
        # A base64 run long enough to hide a ``NAME=value`` line.
        re.compile(r"(?<![A-Za-z0-9+/_-])(?P<value>[A-Za-z0-9+/]{32,}={0,2})"
                   r"(?![A-Za-z0-9+/=_-])"),
    )


def looks_random(value: str) -> bool:
    """Random text, not a word, identifier, path, URL, alphabet or encoded text."""
    if not (any(c.isupper() for c in value) and any(c.islower() for c in value)
            and any(c.isdigit() for c in value)):
        return False
    if (value[0] in "/.-" or ("/" in value and any(c in value for c in ".-_"))
            or max(map(len, re.split(r"[._-]", value))) < 16):
        # A path or a URL (base64 has ``/`` but never ``.``, ``-`` or ``_``), a qualified
        # name or a file name (short parts joined by ``. _ -``).
        return False
    if len("".join(w for w in _word().findall(value) if _spoken(w))) * 2 >= len(value):
        return False  # mostly words: an identifier or a licence name
    if sum(ord(b) - ord(a) == 1 for a, b in itertools.pairwise(value)) * 3 >= len(value):
        return False  # an alphabet (``ABCDEF…xyz0123456789``)
    if _decoded_text(value) is not None:
        return False  # encoded text: judged by what it decodes to
    return shannon_entropy(value.rstrip("=")) >= ENTROPY_THRESHOLD


def _spoken(word: str) -> bool:
    """A word a person wrote (``Latin``, ``HTTP``), not a run of random letters (``kzfq``):
    an acronym, or one vowel at least every four letters."""
    return word.isupper() or sum(c in "aeiouAEIOU" for c in word) * 4 >= len(word)


@cache
def _word() -> re.Pattern[str]:
    """A word inside an identifier: ``Latin``, ``String``, ``military``, ``DOLLAR``."""
    return re.compile(r"[A-Z]?[a-z]{3,}|[A-Z]{4,}")


def bare_spans(text: str, path: str | None,
               holds_credential: Callable[[str, str | None], bool]) -> list[BareSpan]:
    """Spans of shape-judged credentials in one line. ``holds_credential`` is the whole
    line scanner, run on each line of a decoded blob."""
    discord, value, pgpass, blob = _patterns()
    spans = [BareSpan(m.start(), m.end(), "discord-token") for m in discord.finditer(text)]
    for m in blob.finditer(text):
        decoded = _decoded_text(m.group("value"))
        if decoded is not None and any(holds_credential(line, ".env")
                                       for line in decoded.splitlines()):
            spans.append(BareSpan(m.start("value"), m.end("value"), "encoded-secret"))
    for m in value.finditer(text):
        if not any(s.start <= m.start("value") < s.end for s in spans) and looks_random(
                m.group("value")):
            spans.append(BareSpan(m.start("value"), m.end("value"), "random-value"))
    if is_pgpass_file(path) or ":*:" in text or ":5432:" in text:
        # The password field is judged as a password assignment's value: a placeholder
        # (``<password>``, ``password``, ``****``, ``${PGPASS}``) or a marker is no secret.
        spans += [BareSpan(m.start("value"), m.end("value"), "password")
                  for m in pgpass.finditer(text)
                  if is_secret_value("password", m.group("value"), config_file=True)]
    return spans


def _decoded_text(blob: str) -> str | None:
    """The text a base64 blob encodes, or None when it is not printable text."""
    try:
        raw = base64.b64decode(blob + "=" * (-len(blob) % 4), validate=True)
        decoded = raw.decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    if not decoded.isprintable() and not all(c.isprintable() or c in "\r\n\t" for c in decoded):
        return None
    return decoded
