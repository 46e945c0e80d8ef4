"""The reason a reviewer CLI gives for a failed run, wherever that CLI puts it.

Real CLIs differ: claude exits 1 with a JSON envelope on stdout (``"is_error": true,
"result": "Prompt is too long …"``) and nothing on stderr; codex writes ``ERROR: …`` lines
to stderr after a banner that echoes the whole prompt; opencode colours its ``Error:``
lines with ANSI codes. :func:`failure_log` turns a failed (or timed-out) run into log text
whose first line is that reason, followed by the rest of stderr, cleaned: no escape codes
and never the echoed prompt (the review's diff has no place in a failure log).
"""

from __future__ import annotations

import json
import re

#: CSI/OSC escape sequences and other C0 controls except tab and newline.
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-_]|"
                   r"[\x00-\x08\x0b-\x1f\x7f]")
_ERROR_LINE = re.compile(r"^\s*(?:ERROR|Error|error|FATAL|Fatal)\b[:\s]")
_PROMPT_MARK = "[prompt omitted]"


def strip_ansi(text: str) -> str:
    """``text`` without terminal escape sequences or control characters."""
    return _ANSI.sub("", text.replace("\r\n", "\n"))


def drop_prompt(text: str, prompt: str | None) -> str:
    """``text`` with every echo of ``prompt`` (whole, or its first line onwards) removed."""
    if not prompt or not prompt.strip():
        return text
    for echo in (prompt, prompt.strip()):
        if echo in text:  # keep the line break the echo ended with
            return text.replace(echo, _PROMPT_MARK + ("\n" if echo.endswith("\n") else ""))
    return text


def envelope_reason(stdout: str) -> str | None:
    """The ``result`` of a JSON envelope that says ``is_error`` (claude's failure form)."""
    text = stdout.strip()
    if not text.startswith("{"):
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("is_error") is not True:
        return None
    result = data.get("result")
    if isinstance(result, str) and result.strip():
        return result.strip()
    errors = data.get("errors")
    if isinstance(errors, list) and errors and all(isinstance(e, str) for e in errors):
        return "; ".join(errors)
    return None


def error_lines(text: str) -> list[str]:
    """The distinct ``ERROR:``/``Error:`` lines of ``text``, in order."""
    found: dict[str, None] = {}
    for line in text.splitlines():
        if _ERROR_LINE.match(line):
            found.setdefault(line.strip(), None)
    return list(found)


def failure_log(stdout: str, stderr: str, prompt: str | None) -> str | None:
    """The reason first, then the cleaned stderr; None when the run said nothing."""
    clean_err = drop_prompt(strip_ansi(stderr), prompt).strip()
    reason = envelope_reason(stdout)
    if reason is None:
        lines = error_lines(clean_err)
        reason = "\n".join(lines[-3:]) if lines else None
    else:
        reason = strip_ansi(reason)
    parts = [part for part in (reason, clean_err) if part]
    if reason and clean_err and clean_err.strip() == reason:
        parts = [reason]
    return "\n".join(parts) if parts else None
