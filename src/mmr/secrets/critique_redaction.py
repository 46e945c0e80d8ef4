"""Credential-shaped strings out of critique text before it leaves the machine.

The review redacts its diff (00-overview Decisions, ch. 06 §2.1); a design document or a
repository file pulled in as context can carry the same tokens, so critique applies the
same patterns to plain text. Only the credential is replaced (``<redacted:KIND>``); a
private key block becomes one marker line followed by ``<redacted>`` lines through its END
line. A channel with ``on_credentials: allow`` receives the text as written.
"""

from __future__ import annotations

from mmr.secrets.credential_patterns import (
    PRIVATE_KEY_BEGIN,
    PRIVATE_KEY_END,
    credential_spans,
    marker,
    may_hold_credentials,
    replace_spans,
)

_BLOCK_LINE = "<redacted>"


def redact_credentials(text: str) -> tuple[str, int]:
    """``text`` with every credential replaced, and how many were replaced."""
    if not may_hold_credentials(text):
        return text, 0
    count = 0
    in_key_block = False
    out: list[str] = []
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        ending = line[len(body):]
        if in_key_block:
            in_key_block = PRIVATE_KEY_END.search(body) is None
            out.append(_BLOCK_LINE + ending)
            continue
        begin = PRIVATE_KEY_BEGIN.search(body)
        if begin is not None:
            count += 1
            in_key_block = PRIVATE_KEY_END.search(body, begin.end()) is None
            out.append(body[:begin.start()] + marker("private-key") + ending)
            continue
        spans = credential_spans(body)
        # Repeat until clean: replacing one value can expose another match on the line.
        while spans:
            count += len(spans)
            body = replace_spans(body, spans)
            spans = credential_spans(body)
        out.append(body + ending)
    return "".join(out), count


def redaction_warning(count: int) -> str:
    """The stderr line printed when credentials were taken out of the critique's text."""
    return (f"[mmr] warning: redacted {count} credential-shaped string(s) from the artifact "
            "and repository context before sending them (on_credentials: redact)")
