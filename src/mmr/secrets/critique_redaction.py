"""Credential-shaped strings out of plain text: critique inputs and model replies.

The review redacts its diff (00-overview Decisions, ch. 06 §2.1); a design document or a
repository file pulled in as context can carry the same tokens, and a model can repeat a
credential in a finding, so the same redactor runs on plain text. Only the credential is
replaced (``<redacted:KIND>``); a key block keeps its lines (``<redacted>`` body lines).
A channel with ``on_credentials: allow`` receives critique text as written.
"""

from __future__ import annotations

from mmr.secrets.credential_patterns import may_hold_credentials
from mmr.secrets.line_redactor import LineRedactor


def redact_credentials(text: str) -> tuple[str, int]:
    """``text`` with every credential replaced, and how many were replaced."""
    if not may_hold_credentials(text):
        return text, 0
    lines = text.splitlines(keepends=True)
    bodies = [line.rstrip("\r\n") for line in lines]
    redactor = LineRedactor()
    for body in bodies:
        redactor.line(body)
    redactor.finish()
    out = [content + line[len(body):]
           for content, line, body in zip(redactor.out, lines, bodies, strict=True)]
    return "".join(out), len(redactor.hits)


def redact_reply_text(text: str | None) -> str | None:
    """A model's text (a finding's description, a channel error) with credentials replaced."""
    if not text:
        return text
    return redact_credentials(text)[0]


def redaction_warning(count: int) -> str:
    """The stderr line printed when credentials were taken out of the critique's text."""
    return (f"[mmr] warning: redacted {count} credential-shaped string(s) from the artifact "
            "and repository context before sending them (on_credentials: redact)")
