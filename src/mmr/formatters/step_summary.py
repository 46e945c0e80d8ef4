"""Append the markdown report to a GitHub Actions step summary.

GitHub refuses a step summary over 1 MiB (the whole file, including what earlier
commands of the same step appended). When the report would not fit, it is cut to the
findings that do, with a line saying how many were left out; the job log still has
every finding. A summary that cannot be written is a warning, never a failed review.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path

from mmr.formatters.markdown import render_markdown
from mmr.log import stderr_line
from mmr.models import ReconciledFinding, ReconciledResults

STEP_SUMMARY_VAR = "GITHUB_STEP_SUMMARY"
#: GitHub's limit for one step's summary file.
STEP_SUMMARY_LIMIT = 1024 * 1024
WARNING_PREFIX = "[mmr] warning: could not write the step summary: "


def summary_markdown(results: ReconciledResults, budget: int) -> str | None:
    """The markdown report plus a newline in at most ``budget`` UTF-8 bytes, or ``None``.

    Findings are dropped from the end (the least severe) until the report fits.
    """
    full = render_markdown(results) + "\n"
    if _size(full) <= budget:
        return full
    total = sum(len(group) for group in _groups(results))
    low, high = 0, total - 1  # the largest count that fits lies in [low, high]
    best: str | None = None
    while low <= high:
        keep = (low + high) // 2
        candidate = _cut(results, keep)
        if _size(candidate) <= budget:
            best, low = candidate, keep + 1
        else:
            high = keep - 1
    return best


_GROUP_FIELDS = ("reconciled_findings", "outside_diff_findings", "unanchored_findings")


def _groups(results: ReconciledResults) -> list[list[ReconciledFinding]]:
    """In-diff findings, then those outside the diff, then unanchored ones:
    the order they are dropped in is the reverse."""
    return [list(getattr(results, name) or []) for name in _GROUP_FIELDS]


def _cut(results: ReconciledResults, keep: int) -> str:
    update: dict[str, list[ReconciledFinding] | None] = {}
    left = keep
    for name, group in zip(_GROUP_FIELDS, _groups(results), strict=True):
        update[name] = group[:left] if name == "reconciled_findings" else (group[:left] or None)
        left = max(0, left - len(group))
    shown = results.model_copy(update=update)
    left_out = sum(len(group) for group in _groups(results)) - keep
    return (
        render_markdown(shown)
        + f"\n\n_{left_out} more finding(s) are not shown: a step summary is limited to "
        "1 MiB. The job log lists every finding._\n"
    )


def _size(text: str) -> int:
    return len(text.encode("utf-8", "replace"))


def append_step_summary(results: ReconciledResults, environ: Mapping[str, str] | None = None,
                        warn: Callable[[str], None] | None = None) -> bool:
    """Append the report to ``$GITHUB_STEP_SUMMARY`` when it names a file.

    Returns whether anything was written; a failure goes to ``warn`` (default: stderr).
    """
    env = os.environ if environ is None else environ
    target = env.get(STEP_SUMMARY_VAR, "")
    if not target:
        return False
    say = warn or stderr_line
    path = Path(target)
    try:
        used = path.stat().st_size if path.exists() else 0
        text = summary_markdown(results, STEP_SUMMARY_LIMIT - used)
        if text is None:
            say(WARNING_PREFIX + f"{path} is already close to GitHub's 1 MiB limit")
            return False
        with path.open("a", encoding="utf-8", errors="replace") as handle:
            handle.write(text)
    except OSError as exc:
        say(WARNING_PREFIX + (exc.strerror or str(exc)) + f" ({path})")
        return False
    return True
