"""Credential-shaped strings in one line: their kinds and the spans to replace.

Unlike :mod:`mmr.secrets.redact`, which judges a config value by the *name* attached to
it, these recognise the credential *value*: a vendor token format
(:mod:`mmr.secrets.credential_rules`), a URL's password, an ``Authorization`` header's
credentials, or a value assigned to a secret-like name (:mod:`mmr.secrets.assignments`).
Only the value is replaced, never the code around it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from typing import NamedTuple

from ahocorasick_rs import BytesAhoCorasick

from mmr.secrets.assignments import (
    assignment_spans,
    concatenations,
    is_pgpass_file,
    is_secret_name,
    name_kind,
)
from mmr.secrets.bare_values import bare_spans
from mmr.secrets.credential_rules import rules_for, table_keywords
from mmr.secrets.key_blocks import patterns as key_patterns

CredentialKind = str

#: What a finding calls each kind (never the value). Kinds not listed read "<kind> credential".
KIND_LABELS: dict[str, str] = {
    "github-token": "GitHub token",
    "gitlab-token": "GitLab token",
    "access-token": "access token in a URL (x-access-token)",
    "authorization": "Authorization header value",
    "private-key": "private key block",
    "unterminated-private-key": "private key block without an END line (only its key-looking "
    "lines were redacted; check the code after it)",
    "key-body": "key-looking base64 block without its BEGIN line",
    "aws-access-key": "AWS access key ID",
    "aws-secret-key": "AWS secret access key",
    "aws-session-token": "AWS session token",
    "slack-token": "Slack token",
    "slack-webhook": "Slack webhook URL",
    "google-api-key": "Google API key",
    "password": "hard-coded password or secret",
    "secret-value": "random-looking value assigned to a secret-like name",
    "url-password": "password in a URL or connection string",
    "jwt": "JSON Web Token",
    "openai-key": "OpenAI API key",
    "anthropic-key": "Anthropic API key",
    "stripe-key": "Stripe secret key",
    "npm-token": "npm access token",
    "pypi-token": "PyPI upload token",
    "discord-token": "Discord bot token",
    "command-password": "password on a command line",
    "random-value": "random-looking value (no telling name: judged by its entropy)",
    "encoded-secret": "base64 blob that decodes to a credential",
}
#: Kinds judged by a name or an entropy guess: they redact, but never refuse.
LOW_CONFIDENCE_KINDS = frozenset({"authorization", "password", "secret-value", "key-body",
                                  "command-password", "random-value", "encoded-secret"})

#: The six patterns MMR 4.0.1's review wrapper refuses on, exactly; ``refuse`` also
#: refuses on every high-confidence kind found (see :func:`is_high_confidence`).
@cache
def refusal_pattern() -> re.Pattern[str]:
    return re.compile(
        r"ghp_[A-Za-z0-9]|glpat-|x-access-token:|Authorization:|BEGIN [A-Z ]*PRIVATE KEY"
        r"|AKIA[0-9A-Z]{16}")


@cache
def marker_pattern() -> re.Pattern[str]:
    """What a replaced value reads: never a credential itself."""
    return re.compile(r"<redacted(?::[a-z0-9-]+)?>")


#: Keywords of token rules whose every match is a shape :func:`_shapes` finds (Twilio's
#: ``SK`` and Mailgun's ``key-`` before 32 hex digits, Mailchimp's 32 before ``-us``,
#: Dropbox's ``sl.`` and SendGrid's ``SG.`` tokens of 59 characters and more): as words
#: they would make every ``task``, ``monkey-`` or ``isl.`` line worth the full scan.
_SHAPED_KEYWORDS = frozenset({"sk", "key-", "-us", "sl.", "sg."})
#: Words of the key-block and pgpass scans, beside the token rules' keywords.
_BLOCK_WORDS = ("begin", "putty", "private-mac", "private key", ":*:", ":5432:")
_NAME_WORDS = ("pass", "pwd", "secret", "token", "key", "auth", "cred", "bearer", "contrase")
_HEADER_WORDS = ("authorization",)
_URL_PLACEHOLDERS = frozenset({"pass", "password", "passwd", "pwd", "secret", "user",
                               "username", "token", "x", "xxx", "foo", "bar", "changeme"})


def label(kind: str) -> str:
    return KIND_LABELS.get(kind, kind.replace("-", " ") + " credential")


def is_high_confidence(kind: str) -> bool:
    return kind not in LOW_CONFIDENCE_KINDS


def marker(kind: str) -> str:
    """The text that replaces a credential of this kind."""
    return f"<redacted:{kind}>"


class Span(NamedTuple):
    """Characters ``[start, end)`` of one line that hold a credential."""

    start: int
    end: int
    kind: str


@cache
def _headers() -> tuple[re.Pattern[str], re.Pattern[str]]:
    exact = re.compile(r"Authorization:[ \t]*(?P<value>(?:(?:Bearer|Basic|Token|Digest|Bot"
                       r"|Negotiate|NTLM)[ \t]+)?[^\s'\"`,;)<]+)")
    loose = re.compile(r"(?i:authorization)[\"']?[ \t]*[:=,][ \t]*[\"']?(?P<value>(?i:bearer"
                       r"|basic|token)[ \t]+[A-Za-z0-9._~+/=-]{8,})")
    return exact, loose


@cache
def _long_token() -> re.Pattern[str]:
    """A run of token characters long enough for a shape-judged credential."""
    return re.compile(r"[A-Za-z0-9+/_~.=-]{24}")


@cache
def _candidate() -> BytesAhoCorasick:
    words = {*table_keywords(), *_NAME_WORDS, *_HEADER_WORDS, *_BLOCK_WORDS}
    return BytesAhoCorasick([word.encode() for word in words])


def may_hold_credentials(text: str) -> bool:
    """A cheap test: False means nothing here can match anywhere in ``text``."""
    lower = text.lower().encode("utf-8", "surrogatepass")
    return bool(_candidate().find_matches_as_indexes(lower)) or (
        _long_token().search(text) is not None)


@cache
def _line_triggers() -> tuple[BytesAhoCorasick, BytesAhoCorasick, re.Pattern[bytes]]:
    """What makes a line worth the full scan: a word some rule needs (``-----end`` a
    public block's end), a secret-name word beside an assignment, quotes, an XML closing
    tag or a netrc ``machine``, the shape of a credential with no telling word
    (:func:`_shapes`). The words are found by Aho-Corasick automatons, one pass each."""
    strong = {*table_keywords(), *_BLOCK_WORDS, "authoriz", "-----end"} - _SHAPED_KEYWORDS
    return (BytesAhoCorasick([word.encode() for word in sorted(strong)]),
            BytesAhoCorasick([word.encode() for word in _NAME_WORDS]),
            # An assignment whose value could be redacted outside a config file: quoted
            # (or opened by a parenthesis), or unquoted and long enough to be judged (six
            # characters, two of them may be a base64 tail's ``=``).
            re.compile(rb"(?::=|=>|=(?!=)|:(?![:/\\]))[ \t]*"
                       rb"""(?:[("'`]|[^\s'"`,;&()<>{}\[\]=]{4})"""))


class _Shapes(NamedTuple):
    """Where a credential with no telling word can be (:mod:`mmr.secrets.bare_values`),
    looked for in the text with each byte mapped to its class (``bytes.translate``).

    In ``classes``: ``a`` a letter, ``+``, ``/`` or ``~``, ``d`` a digit, ``e`` ``=``,
    ``b`` one of ``._-``, ``q`` a quote, ``c`` ``:``, ``s`` a blank. ``value``: a random
    value (after a quote, ``=`` or ``:``, one blank allowed: 24 token characters or more
    with a digit, one part between ``._-`` 16 or more).
    In ``base64`` (a base64 character, ``~`` or ``=`` is ``a``): 16 in a row, where a
    value's part can be; 32, a base64 blob or a loose key body line.
    In ``tokens`` (``a`` any token character, ``q`` a quote): a Discord token (59 or
    more); ``four_quotes``; ``adjacent``, two literals joined (by ``+``, ``.``, ``||`` or
    nothing), whose joined value is judged whole: 24 token characters or a word of
    ``_SHAPED_KEYWORDS`` on such a line makes it worth the full scan.
    """

    classes: bytes
    base64: bytes
    tokens: bytes
    value: re.Pattern[bytes]
    four_quotes: re.Pattern[bytes]
    adjacent: re.Pattern[bytes]
    #: A word of ``_SHAPED_KEYWORDS``: still a candidate word, so literals joined on its
    #: line are judged whole.
    shaped_word: re.Pattern[bytes]


@cache
def _shapes() -> _Shapes:
    classes = {**dict.fromkeys(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz+/~", "a"),
               **dict.fromkeys(b"0123456789", "d"), **dict.fromkeys(b"._-", "b"),
               **dict.fromkeys(b"\"'`", "q"), **dict.fromkeys(b" \t", "s"), ord("="): "e",
               ord(":"): "c", 10: "\n"}
    base64 = {byte: "a" if kind in "ade" else kind for byte, kind in classes.items()}
    tokens = {byte: "a" if kind in "abde" else kind for byte, kind in classes.items()}
    return _Shapes(_byte_map(classes), _byte_map(base64), _byte_map(tokens),
                   re.compile(rb"[qec]s?(?=[abde]{24})(?=[abe]*d)[abde]*?[ade]{16}"),
                   re.compile(rb"q[^q\n]*q[^q\n]*q[^q\n]*q"), re.compile(rb"q[s ]*a?[s ]*q"),
                   re.compile("|".join(map(re.escape, sorted(_SHAPED_KEYWORDS))).encode()))


def _byte_map(kinds: dict[int, str]) -> bytes:
    """A ``bytes.translate`` table: each byte to its kind's letter, the rest to a blank."""
    return bytes(ord(kinds.get(byte, " ")) for byte in range(256))


def _word_lines(words: BytesAhoCorasick, data: bytes) -> dict[int, bytes]:
    """The lines holding one of ``words`` (the matches do not overlap), and their text."""
    return _matched_lines(data, (start for _, start, _ in words.find_matches_as_indexes(data)))


def _lines_matching(pattern: re.Pattern[bytes], searched: bytes,
                    data: bytes) -> dict[int, bytes]:
    """The lines where ``pattern`` matches ``searched`` (``data`` mapped byte for byte), and
    their text in ``data``."""
    return _matched_lines(data, (m.start() for m in pattern.finditer(searched)))


def _lines_holding(searched: bytes, needle: bytes, data: bytes | None = None
                   ) -> dict[int, bytes]:
    """The lines (by number) where ``searched`` holds ``needle``, and their text in
    ``data`` (``searched`` mapped byte for byte; itself by default): substring searches."""
    starts = []
    at = searched.find(needle)
    while at >= 0:
        starts.append(at)
        at = searched.find(needle, searched.find(b"\n", at) % (len(searched) + 1) + 1)
    return _matched_lines(searched if data is None else data, starts)


def _matched_lines(data: bytes, starts: Iterable[int]) -> dict[int, bytes]:
    """The lines (by number) the matches starting at ``starts`` (in order) are in, and
    their text."""
    found: dict[int, bytes] = {}
    line = counted = 0
    end = -1
    for start in starts:
        if start > end:
            line += data.count(b"\n", counted, start)
            counted, end = start, data.find(b"\n", start) % (len(data) + 1)
            found[line] = data[data.rfind(b"\n", 0, start) + 1:end]
    return found


#: Line breaks of ``str.splitlines`` other than ``\n``, ``\r\n`` and a lone ``\r``.
_ODD_BREAKS = "\v\f\x1c\x1d\x1e\x85\u2028\u2029"


def hot_lines(text: str, *, config: bool = False) -> list[int] | None:
    """The lines of ``text`` that may hold a credential or touch a key block (no other
    does); None when a line ends in other than ``\\n``/``\\r\\n`` (only splitlines counts).
    In a ``config`` file every line naming a secret word is one (``password hunter2``)."""
    # The odd-break test is character scans: a regex over the whole text took ~10 ns a
    # character for it.
    if text.count("\r") != text.count("\r\n") or any(c in text for c in _ODD_BREAKS):
        return None
    strong, names, assign = _line_triggers()
    # In UTF-8 a multi-byte character has no ASCII byte: words and breaks stay in place,
    # and lowering only ever turns a character into an ASCII letter (more matches, not less).
    lower = text.lower().encode("utf-8", "surrogatepass")
    shapes = _shapes()
    classes, base64 = lower.translate(shapes.classes), lower.translate(shapes.base64)
    tokens = lower.translate(shapes.tokens)
    # Whole-text searches (substrings, or a regex anchored on a quote) find the few lines
    # a shape, a closing tag or four quotes are in; lines are looked at one by one only
    # for what the whole text cannot tell.
    quoted = _lines_matching(shapes.four_quotes, tokens, lower)
    marked = quoted.keys() | _lines_holding(lower, b"</").keys() | _lines_holding(
        lower, b"machine").keys()
    hot = set(_word_lines(strong, lower))
    hot.update(line for line, body in _word_lines(names, lower).items()
               if config or line in marked or assign.search(body))
    hot.update(line for line, body in _lines_holding(base64, b"a" * 16, classes).items()
               if shapes.value.search(body))
    hot.update(_lines_holding(base64, b"a" * 32))
    hot.update(_lines_holding(tokens, b"a" * 59))
    for line, body in quoted.items():
        kinds = body.translate(shapes.tokens)
        if shapes.adjacent.search(kinds) and (b"a" * 24 in kinds
                                              or shapes.shaped_word.search(body)):
            hot.add(line)
    return sorted(hot)


def _token_spans(text: str, lower: str) -> list[Span]:
    spans = []
    for rule in rules_for(lower):
        for m in rule.pattern.finditer(text):
            group = "value" if "value" in rule.pattern.groupindex else 0
            value = m.group(group)
            if marker_pattern().search(value) or (rule.check is not None and not rule.check(value)):
                continue
            if rule.kind == "url-password" and value.lower() in _URL_PLACEHOLDERS:
                continue
            spans.append(Span(m.start(group), m.end(group), rule.kind))
    return spans


def _raw_spans(text: str, path: str | None) -> list[Span]:
    lower = text.lower()
    spans = _token_spans(text, lower)
    quoted = text.count('"') + text.count("'") >= 4
    for joined, pieces in concatenations(text) if quoted else ():
        # Split values are judged on the joined value: every literal a credential found in
        # the joined text touches is replaced.
        # Quoted again, the joined value also meets the shape rules (a random value, an
        # encoded blob) its pieces were too short for.
        inner = _token_spans(joined, joined.lower()) + [
            Span(s.start, s.end, name_kind(s.name)) for s in assignment_spans(joined, None)] + [
            Span(s.start - 1, s.end - 1, s.kind)
            for s in bare_spans(f'"{joined}"', None, _holds_credential)]
        offset = 0
        for a, b in pieces:
            touching = [s for s in inner if s.start < offset + b - a and offset < s.end]
            if touching and b > a:
                spans.append(Span(a, b, touching[0].kind))
            offset += b - a
    if "private key" in lower:
        spans += [Span(m.start(), m.end(), "private-key")
                  for m in key_patterns().inline.finditer(text) if "\\" in m.group()]
    # Name- and header-judged values yield to the precise spans of a known format.
    guesses: list[Span] = []
    if "authoriz" in lower:
        for pattern in _headers():
            guesses += [Span(m.start("value"), m.end("value"), "authorization")
                        for m in pattern.finditer(text)
                        if not marker_pattern().search(m.group("value"))]
    if any(word in lower for word in _NAME_WORDS):
        guesses += [Span(s.start, s.end, name_kind(s.name)) for s in assignment_spans(text, path)]
    if (_long_token().search(text) is not None or ":*:" in text or ":5432:" in text
            or is_pgpass_file(path)):
        guesses += [Span(*span) for span in bare_spans(text, path, _holds_credential)]
    return spans + [g for g in guesses
                    if not any(s.start < g.end and g.start < s.end for s in spans)]


def _holds_credential(text: str, path: str | None) -> bool:
    return bool(credential_spans(text, path))


def credential_spans(text: str, path: str | None = None) -> list[Span]:
    """Non-overlapping credential spans in one line, left to right.

    Overlapping matches (a GitHub token inside an ``x-access-token:`` URL) merge into one
    span that keeps the kind of the match that starts first (the longer one on a tie).
    ``path`` (the file the line is in) lets config files assign unquoted values.
    """
    if not may_hold_credentials(text) and not is_pgpass_file(path):
        return []
    merged: list[Span] = []
    for span in sorted(_raw_spans(text, path), key=lambda s: (s.start, -s.end)):
        if merged and span.start < merged[-1].end:
            last = merged[-1]
            merged[-1] = Span(last.start, max(last.end, span.end), last.kind)
        else:
            merged.append(span)
    return merged


def replace_spans(text: str, spans: list[Span]) -> str:
    """``text`` with each span replaced by its kind's marker."""
    pieces: list[str] = []
    cursor = 0
    for span in spans:
        pieces += [text[cursor:span.start], marker(span.kind)]
        cursor = span.end
    pieces.append(text[cursor:])
    return "".join(pieces)


__all__ = [
    "KIND_LABELS",
    "CredentialKind",
    "Span",
    "credential_spans",
    "is_high_confidence",
    "is_secret_name",
    "label",
    "marker",
    "marker_pattern",
    "may_hold_credentials",
    "refusal_pattern",
    "replace_spans",
]
