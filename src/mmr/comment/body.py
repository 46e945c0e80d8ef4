"""The sticky comment's text: the markdown report, what was resolved, and a hidden state.

The comment is found again by :data:`MARKER`. The findings it showed are kept in a hidden
``<!-- mmr:state … -->`` line (base64 JSON, so no reviewer text can close the HTML
comment early): ``finding_key`` → a one-line summary. On the next run a key that is gone
is listed under "Resolved since the last run" instead of vanishing without a word.
"""

from __future__ import annotations

import base64
import binascii
import html
import json
import re
from dataclasses import dataclass, field

from mmr.formatters import render
from mmr.models import ReconciledResults

MARKER = "<!-- mmr:sticky-comment v1 -->"
_STATE = re.compile(r"<!-- mmr:state ([A-Za-z0-9+/=]*) -->\Z")
#: GitHub refuses comments over 65,536 characters; leave room for the marker and state.
MAX_BODY = 60_000
_SUMMARY_WIDTH = 140
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class CommentBody:
    text: str
    shown: dict[str, str] = field(default_factory=dict)
    resolved: dict[str, str] = field(default_factory=dict)


def finding_summary(severity: str, location: str, description: str) -> str:
    """``P1 `src/a.py:3` — Off-by-one …`` on one line, safe inside markdown."""
    words = _SPACE.sub(" ", description).strip()
    if len(words) > _SUMMARY_WIDTH:
        words = words[: _SUMMARY_WIDTH - 1].rstrip() + "…"
    place = _SPACE.sub(" ", location).replace("`", "'")
    return f"{severity} `{place}` — {inert(words)}"


def inert(text: str) -> str:
    """Reviewer text made safe inside markdown."""
    # No HTML, no @mentions or #references that would ping people or link issues.
    escaped = html.escape(text, quote=False).replace("@", "@\u200b").replace("#", "#\u200b")
    return re.sub(r"([\\`*_\[\]|~])", r"\\\1", escaped)


def read_state(body: str) -> dict[str, str]:
    """The findings a previous comment showed; empty when it has no readable state.

    Only the body's last line counts: reviewer text in the report above it may hold a
    look-alike line.
    """
    match = _STATE.search(body.rstrip("\n").rsplit("\n", 1)[-1])
    if match is None:
        return {}
    try:
        data = json.loads(base64.b64decode(match.group(1), validate=True))
    except (binascii.Error, ValueError):
        return {}
    shown = data.get("shown") if isinstance(data, dict) else None
    if not isinstance(shown, dict):
        return {}
    return {k: v for k, v in shown.items() if isinstance(k, str) and isinstance(v, str)}


def build_body(results: ReconciledResults, previous: dict[str, str]) -> CommentBody:
    """The comment for ``results``, given what the previous comment showed."""
    shown = {f.finding_key: finding_summary(f.severity, f.location, f.description)
             for f in results.reconciled_findings}
    resolved = {key: line for key, line in previous.items() if key not in shown}
    report = render(results, "markdown")
    tail = []
    if resolved:
        tail += ["", "### Resolved since the last run", ""]
        tail += [f"- ~~{line}~~" for line in resolved.values()]
    state = base64.b64encode(json.dumps({"shown": shown}, ensure_ascii=True).encode()).decode()
    footer = ["", f"<!-- mmr:state {state} -->"]
    room = MAX_BODY - sum(len(line) + 1 for line in [MARKER, *tail, *footer])
    if len(report) > room:
        cut = report[: max(room - 200, 0)].rsplit("\n", 1)[0]
        report = cut + ("\n\n_The report is cut to fit a comment; the job log and "
                        "`mmr results` have every finding._")
    text = "\n".join([MARKER, report, *tail, *footer])
    return CommentBody(text, shown, resolved)
