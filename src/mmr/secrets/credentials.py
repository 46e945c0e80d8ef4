"""Credentials in the diff: scan, redact before any prompt leaves, and report (ch. 06 §2.1).

The diff is walked line by line so each hit knows its file and its line number (new-file
numbers from the hunk headers for added and context lines, old-file numbers for removed
ones). Only the credential is replaced: line prefixes, file headers and hunk ranges stay,
so paths and the diff-location filter keep working.
"""

from __future__ import annotations

from dataclasses import dataclass

from mmr.models import Finding
from mmr.secrets.credential_patterns import (
    KIND_LABELS,
    PRIVATE_KEY_BEGIN,
    PRIVATE_KEY_END,
    REFUSAL_PATTERN,
    CredentialKind,
    credential_spans,
    marker,
    may_hold_credentials,
    replace_spans,
)
from mmr.unidiff.walk import DiffLine, walk_diff

SECRETS_SOURCE = "mmr-secrets"
REFUSAL_MESSAGE = "credential-shaped content in diff"
ROTATE_SUGGESTION = "Remove it from the change and rotate it."
_BLOCK_LINE = "<redacted>"


@dataclass(frozen=True)
class CredentialHit:
    """One credential found in the diff: its kind and where, never its value."""

    kind: CredentialKind
    file: str | None
    line: int | None
    added: bool


def has_refusable_credentials(diff_text: str) -> bool:
    """True when the diff matches an RM-3 pattern (what ``on_credentials: refuse`` checks)."""
    return REFUSAL_PATTERN.search(diff_text) is not None


def redaction_warning(count: int) -> str:
    """The stderr line printed when ``count`` credentials were redacted from the diff."""
    return (f"[mmr] warning: redacted {count} credential-shaped string(s) from the diff "
            "before sending it (on_credentials: redact)")


class _Redactor:
    """Carries the one piece of cross-line state: being inside a private key block."""

    def __init__(self) -> None:
        self.in_key_block = False
        self.hits: list[CredentialHit] = []

    def line(self, entry: DiffLine) -> str:
        if entry.starts_file:
            self.in_key_block = False
        content = entry.content
        if self.in_key_block and entry.scannable_for_blocks:
            self.in_key_block = PRIVATE_KEY_END.search(content) is None
            return entry.prefix + _BLOCK_LINE
        begin = PRIVATE_KEY_BEGIN.search(content) if entry.scannable_for_blocks else None
        if begin is not None:
            self._hit("private-key", entry)
            self.in_key_block = PRIVATE_KEY_END.search(content, begin.end()) is None
            return entry.prefix + marker("private-key")
        # Repeat until clean: a replacement can expose a new match (``AKIA…password = "…"``
        # only reads as a password assignment once the key id before it is a marker). Each
        # pass removes characters that are not marker text, so the loop ends.
        redacted = content
        spans = credential_spans(redacted)
        while spans:
            for span in spans:
                self._hit(span.kind, entry)
            redacted = replace_spans(redacted, spans)
            spans = credential_spans(redacted)
        return entry.prefix + redacted

    def _hit(self, kind: CredentialKind, entry: DiffLine) -> None:
        self.hits.append(CredentialHit(kind, entry.file, entry.line, entry.added))


def redact_diff(diff_text: str) -> tuple[str, list[CredentialHit]]:
    """The diff with every credential replaced by ``<redacted:KIND>``, and what was found.

    A private key block becomes one ``<redacted:private-key>`` line followed by
    ``<redacted>`` lines (each keeping its diff prefix) through its END line, or through
    the end of the file's section when the END line is missing.
    """
    if not may_hold_credentials(diff_text):
        return diff_text, []
    redactor = _Redactor()
    lines = [redactor.line(entry) + entry.line_ending for entry in walk_diff(diff_text)]
    return "".join(lines), redactor.hits


def scan_diff(diff_text: str) -> list[CredentialHit]:
    """Every credential in the diff, in order (the hits :func:`redact_diff` replaces)."""
    return redact_diff(diff_text)[1]


def secret_findings(hits: list[CredentialHit]) -> list[Finding]:
    """One P1 security finding per added line that carries a credential.

    ``Authorization:`` alone is too broad to call a committed secret, so it only redacts.
    """
    kinds_by_location: dict[str, list[CredentialKind]] = {}
    for hit in hits:
        if not hit.added or hit.kind == "authorization" or hit.file is None or hit.line is None:
            continue
        kinds = kinds_by_location.setdefault(f"{hit.file}:{hit.line}", [])
        if hit.kind not in kinds:
            kinds.append(hit.kind)
    return [
        Finding(
            severity="P1",
            location=location,
            description="Hard-coded credential added by this change: "
            + ", ".join(KIND_LABELS[kind] for kind in kinds) + ".",
            suggestion=ROTATE_SUGGESTION,
            category="security",
        )
        for location, kinds in kinds_by_location.items()
    ]
