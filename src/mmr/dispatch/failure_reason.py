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
from collections.abc import Callable

from mmr.formatters.sanitize import visible_controls

#: CSI/OSC escape sequences and other C0 controls except tab and newline.
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-_]|"
                   r"[\x00-\x08\x0b-\x1f\x7f]")
_ERROR_LINE = re.compile(r"^\s*(?:ERROR|Error|error|FATAL|Fatal)\b[:\s]")
_PROMPT_MARK = "[prompt omitted]"
#: Spaces and the box-drawing frame some CLIs put round a line (opencode's ``└  0 …``).
_FRAME = " \t\u2500\u2502\u2514\u250c\u2510\u2518\u251c\u2524\u25cf\u25c6\u25c7"
SAID_MAX_CHARS = 240
#: A line a CLI repeats while it retries without end (codex offline: 0 s, 5 s, 15 s, 35 s …),
#: and how many of them mmr waits for before it stops the CLI instead of its timeout.
STUCK_LINE = "Reconnecting... waiting for network"
STUCK_REPEATS = 3


def strip_ansi(text: str) -> str:
    """``text`` without terminal escape sequences or C0 controls; C1 controls and bidi
    overrides (which no colour code uses) are kept visible as escapes."""
    return visible_controls(_ANSI.sub("", text.replace("\r\n", "\n")))


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


def last_said(*texts: str, clean: Callable[[str], str] = str) -> str | None:
    """The last non-empty line of the first text that has one, cleaned and cut: what a
    CLI's status command said (its stdout first; stderr carries banners and warnings).

    ``clean`` (the redactor) sees the whole line before the cut: a credential cut in two
    would keep a head too short for its pattern."""
    for text in texts:
        for raw in reversed(strip_ansi(text).splitlines()):
            line = raw.strip(_FRAME)
            if line:
                line = clean(line)
                return line if len(line) <= SAID_MAX_CHARS else line[:SAID_MAX_CHARS] + "…"
    return None


class StuckWatch:
    """Counts :data:`STUCK_LINE` in a stderr stream fed chunk by chunk (a ``give_up``)."""

    def __init__(self) -> None:
        self.count = 0
        self._tail = b""

    def __call__(self, chunk: bytes) -> bool:
        *lines, tail = (self._tail + chunk).split(b"\n")
        self._tail = tail[-4096:]
        self.count += sum(STUCK_LINE in line.decode("utf-8", "replace") for line in lines)
        return self.count >= STUCK_REPEATS


def stuck_log(stdout: str, stderr: str, prompt: str | None) -> str:
    """The log of a CLI stopped by :class:`StuckWatch`: why mmr stopped it, then its own."""
    note = (f"stopped after {STUCK_REPEATS} lines of \"{STUCK_LINE}\": the CLI cannot reach "
            "its model API (offline, or a wrong base URL)")
    rest = failure_log(stdout, stderr, prompt)
    return f"{note}\n{rest}" if rest else note
