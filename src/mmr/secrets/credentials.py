"""Credentials in the diff: scan, redact before any prompt leaves, and report; and the same
redaction for plain text (critique inputs, model replies, channel logs).

The diff is walked line by line so each hit knows its file and its line number (new-file
numbers from the hunk headers for added and context lines, old-file numbers for removed
ones). Only the credential is replaced: line prefixes, file headers, hunk ranges and the
code around a value stay, so paths, the diff-location filter and the review keep working.
"""

from __future__ import annotations

from dataclasses import dataclass

from mmr.secrets.assignments import is_config_file, is_pgpass_file
from mmr.secrets.credential_patterns import (
    CredentialKind,
    hot_lines,
    is_high_confidence,
    may_hold_credentials,
    refusal_pattern,
)
from mmr.secrets.line_redactor import LineRedactor
from mmr.unidiff.walk import walk_diff

SECRETS_SOURCE = "mmr-secrets"
REFUSAL_MESSAGE = "credential-shaped content in diff"
ROTATE_SUGGESTION = "Remove it from the change and rotate it."


@dataclass(frozen=True)
class CredentialHit:
    """One credential found in the diff: its kind and where, never its value."""

    kind: CredentialKind
    file: str | None
    line: int | None
    added: bool

    @property
    def high_confidence(self) -> bool:
        """A vendor format or key block, not a name or entropy guess."""
        return is_high_confidence(self.kind)


def refusable(diff_text: str, hits: list[CredentialHit] | tuple[CredentialHit, ...]) -> bool:
    """What ``on_credentials: refuse`` checks: a :func:`refusal_pattern` match, or any
    high-confidence hit."""
    return refusal_pattern().search(diff_text) is not None or any(
        hit.high_confidence for hit in hits)


def has_refusable_credentials(diff_text: str) -> bool:
    """True when ``on_credentials: refuse`` must refuse this diff (see :func:`refusable`)."""
    return refusable(diff_text, scan_diff(diff_text))


def redaction_warning(count: int) -> str:
    """The stderr line printed when ``count`` credentials were redacted from the diff."""
    return (f"[mmr] warning: redacted {count} credential-shaped string(s) from the diff "
            "before sending it (on_credentials: redact)")


def redact_diff(diff_text: str) -> tuple[str, list[CredentialHit]]:
    """The diff with every credential replaced by ``<redacted:KIND>``, and what was found.

    A private key block keeps its lines: the BEGIN marker becomes
    ``<redacted:private-key>``, each key-looking body line and the END marker
    ``<redacted>`` (see :mod:`mmr.secrets.key_blocks`).
    """
    if not may_hold_credentials(diff_text):
        return diff_text, []
    entries = list(walk_diff(diff_text))
    redactor = LineRedactor()
    for entry in entries:
        redactor.line(entry.content, blocks=entry.scannable_for_blocks,
                      starts_file=entry.starts_file, path=entry.file)
    redactor.finish()
    text = "".join(entry.prefix + content + entry.line_ending
                   for entry, content in zip(entries, redactor.out, strict=True))
    hits = [CredentialHit(hit.kind, entries[hit.at].file, entries[hit.at].line,
                          entries[hit.at].added)
            for hit in sorted(redactor.hits, key=lambda h: h.at)]
    return text, hits


def redact_credentials(text: str, path: str | None = None) -> tuple[str, int]:
    """Plain ``text`` (a design document, repository context, a model's reply or log; the
    file at ``path`` when it is one) with every credential replaced, and how many were
    replaced; a key block keeps its lines. Only :func:`hot_lines` (and lines inside a
    block) get the full scan."""
    pgpass = is_pgpass_file(path)
    hot = None if pgpass else hot_lines(text, config=is_config_file(path))
    if hot == [] or (hot is None and not pgpass and not may_hold_credentials(text)):
        return text, 0
    bodies = text.splitlines() if hot is not None else [
        line.rstrip("\r\n") for line in text.splitlines(keepends=True)]
    redactor = LineRedactor()
    done = 0
    for index in [*(range(len(bodies)) if hot is None else hot), len(bodies)]:
        while done < index and not redactor.idle:
            redactor.line(bodies[done], path=path)
            done += 1
        redactor.skip(bodies[done:index])
        if index < len(bodies):
            redactor.line(bodies[index], path=path)
        done = index + 1
    redactor.finish()
    if redactor.out == bodies:
        return text, len(redactor.hits)
    lines = text.splitlines(keepends=True)
    out = [content + line[len(body):]
           for content, line, body in zip(redactor.out, lines, bodies, strict=True)]
    return "".join(out), len(redactor.hits)


def scan_diff(diff_text: str) -> list[CredentialHit]:
    """Every credential in the diff, in order (the hits :func:`redact_diff` replaces)."""
    return redact_diff(diff_text)[1]
