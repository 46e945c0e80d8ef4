"""Credential-shaped strings: the patterns, their kinds, and the spans to replace (ch. 06 §2.1).

Unlike :mod:`mmr.secrets.redact`, which judges a value by the *name* attached to it, these
patterns recognise the credential *value* itself (a GitHub token, an AWS key id), because
a diff under review carries values, not labelled config.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from mmr.secrets.secret_names import name_parts

CredentialKind = Literal[
    "github-token", "gitlab-token", "access-token", "authorization", "private-key",
    "aws-access-key", "aws-secret-key", "slack-token", "google-api-key", "password",
]

#: What a finding calls each kind (never the value).
KIND_LABELS: dict[CredentialKind, str] = {
    "github-token": "GitHub token",
    "gitlab-token": "GitLab personal access token",
    "access-token": "access token in a URL (x-access-token)",
    "authorization": "Authorization header value",
    "private-key": "private key block",
    "aws-access-key": "AWS access key ID",
    "aws-secret-key": "AWS secret access key",
    "slack-token": "Slack token",
    "google-api-key": "Google API key",
    "password": "hard-coded password or secret",
}

#: The six RM-3 patterns, exactly as the review wrapper spec gives them. Only these make
#: an ``on_credentials: refuse`` channel refuse; the extra formats below only redact.
REFUSAL_PATTERN = re.compile(
    r"ghp_[A-Za-z0-9]|glpat-|x-access-token:|Authorization:|BEGIN [A-Z ]*PRIVATE KEY"
    r"|AKIA[0-9A-Z]{16}"
)
PRIVATE_KEY_BEGIN = re.compile(r"BEGIN [A-Z ]*PRIVATE KEY")
PRIVATE_KEY_END = re.compile(r"END [A-Z ]*PRIVATE KEY")

#: Patterns whose whole match is the credential.
_TOKENS: tuple[tuple[CredentialKind, re.Pattern[str]], ...] = (
    ("github-token", re.compile(r"ghp_[A-Za-z0-9]+")),
    ("github-token", re.compile(r"gh[oprsu]_[A-Za-z0-9]{36,}")),
    ("github-token", re.compile(r"github_pat_[A-Za-z0-9_]{22,}")),
    ("gitlab-token", re.compile(r"glpat-[A-Za-z0-9_-]*")),
    ("aws-access-key", re.compile(r"AKIA[0-9A-Z]{16}")),
    ("slack-token", re.compile(r"xox[abprs]-[A-Za-z0-9-]{10,}")),
    ("google-api-key", re.compile(r"AIza[0-9A-Za-z_-]{35}")),
)
_ASSIGN = r"""["']?\s*(?::=|=>|[:=])\s*"""
# The name patterns below start only where a name starts (the look-behinds): tried from
# every position inside a long identifier, they would take quadratic time.
#: Patterns where only the ``value`` group is the credential; the label around it stays.
_VALUES: tuple[tuple[CredentialKind, re.Pattern[str]], ...] = (
    ("access-token", re.compile(r"x-access-token:(?P<value>[^@\s]+)")),
    ("authorization", re.compile(r"Authorization:[ \t]*(?P<value>\S.*)")),
    ("aws-secret-key", re.compile(
        # Atomic and possessive: the name is the whole identifier, never re-split, so a
        # long run of "aws_secret_access_key" stays linear (backtracking was quadratic).
        r"(?<![A-Za-z0-9_.-])(?i:(?>[A-Za-z0-9_.-]*?aws_secret_access_key)[A-Za-z0-9_.-]*+)"
        + _ASSIGN
        + r"""["']?(?P<value>[A-Za-z0-9/+=]{20,})""")),
)
_PASSWORD_ASSIGNMENT = re.compile(
    r"(?<![A-Za-z0-9_.-])(?P<name>[A-Za-z_][A-Za-z0-9_.-]*)" + _ASSIGN
    + r"""(?:"(?P<dq>[^"\n]{8,})"|'(?P<sq>[^'\n]{8,})')"""
)
#: Every pattern above, lower-cased: each match contains one of these. Searching the
#: lower-cased text is a superset test and far faster than a case-insensitive regex.
_TRIGGER = re.compile(
    r"gh[oprsu]_|github_pat_|glpat-|akia|xox[abprs]-|aiza|x-access-token:|authorization:"
    r"|aws_secret_access_key|password|passwd|secret|private key"
)
_PASSWORD_WORDS = frozenset({"password", "passwd", "secret"})
#: A trailing word that makes the name describe the secret rather than hold it.
_DESCRIPTIVE_SUFFIXES = frozenset({
    "name", "names", "file", "path", "env", "var", "field", "label", "prompt", "placeholder",
    "hint", "help", "message", "msg", "text", "title", "pattern", "regex", "url", "dir", "type",
})
_PLACEHOLDER_STARTS = ("$", "{{", "%(", "<", "os.environ", "process.env")
MARKER = re.compile(r"<redacted(?::[a-z-]+)?>")


def marker(kind: CredentialKind) -> str:
    """The text that replaces a credential of this kind in the diff."""
    return f"<redacted:{kind}>"


@dataclass(frozen=True)
class Span:
    """Characters ``[start, end)`` of one line that hold a credential."""

    start: int
    end: int
    kind: CredentialKind


def may_hold_credentials(text: str) -> bool:
    """A cheap test: False means no pattern here can match anywhere in ``text``."""
    return _TRIGGER.search(text.lower()) is not None


def _is_password_literal(name: str, value: str) -> bool:
    parts = [part for part in name_parts(name) if part]
    if not parts or not _PASSWORD_WORDS.intersection(parts):
        return False
    if parts[-1] in _DESCRIPTIVE_SUFFIXES:
        return False
    return not (value.startswith(_PLACEHOLDER_STARTS) or "${" in value or "{{" in value
                or MARKER.fullmatch(value))


def _raw_spans(text: str) -> list[Span]:
    if not may_hold_credentials(text):
        return []
    spans = [Span(m.start(), m.end(), kind) for kind, pattern in _TOKENS
             for m in pattern.finditer(text)]
    for kind, pattern in _VALUES:
        for m in pattern.finditer(text):
            if not MARKER.fullmatch(m.group("value").rstrip()):
                spans.append(Span(m.start("value"), m.end("value"), kind))
    for m in _PASSWORD_ASSIGNMENT.finditer(text):
        group = "dq" if m.group("dq") is not None else "sq"
        if _is_password_literal(m.group("name"), m.group(group)):
            spans.append(Span(m.start(group), m.end(group), "password"))
    return spans


def credential_spans(text: str) -> list[Span]:
    """Non-overlapping credential spans in one line, left to right.

    Overlapping matches (a GitHub token inside an ``x-access-token:`` URL) merge into one
    span that keeps the kind of the match that starts first (the longer one on a tie).
    """
    merged: list[Span] = []
    for span in sorted(_raw_spans(text), key=lambda s: (s.start, -s.end)):
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
