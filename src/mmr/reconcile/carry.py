"""A pull request's findings across pushes. A previous finding is ``open`` when reported
again (same ``finding_key``, or the calibrated rule's same defect in other words nearby) or
when none of its lines changed since (nobody had reason to report it again: it still
gates); ``fixed`` when its lines changed and nobody reports it again.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence

from mmr.models import ReconciledFinding
from mmr.reconcile.anchoring import split_location
from mmr.reconcile.calibrated import THRESHOLD, line_range, near, similarity
from mmr.reconcile.diff_filter import normalize_path
from mmr.reconcile.stable_id import identify
from mmr.reconcile.wording import content_words
from mmr.store.pulls import Hunk
from mmr.unidiff.walk import HUNK, walk_diff

_LINES = re.compile(r"(?<![\d:]):\d+(?:-\d+)?\Z")  # `a.py:10` or `a.py:10-12`
Span = tuple[int, int] | None


def parse_changes(zero_context_diff: str) -> dict[str, list[Hunk]]:
    """The hunks of each old path in a ``git diff -U0`` (a new file under its new path)."""
    changes: dict[str, list[Hunk]] = {}
    hunks: list[Hunk] = []
    old: str | None = None
    for line in walk_diff(zero_context_diff):
        if line.kind == "header" and line.text.startswith("--- "):
            old = line.file
        elif line.kind == "header" and line.text.startswith("+++ "):
            hunks = changes.setdefault(old or line.file or "", [])
        elif line.kind == "hunk" and (match := HUNK.match(line.prefix)):
            start, count, new_start, new_count = (1 if g is None else int(g)
                                                  for g in match.group(2, 3, 4, 5))
            hunks.append((start, count, new_start, new_count))
    return changes


def shift(span: Span, hunks: Sequence[Hunk]) -> int | None:
    """How many lines a range moved between the heads; None when a hunk touched it (a
    finding without lines is touched by any hunk of its file)."""
    if span is None:
        return None if hunks else 0
    moved = 0
    for start, count, _, new_count in hunks:
        end = start + count - 1  # count 0: lines inserted after `start`
        if span[0] <= start < span[1] if count == 0 else start <= span[1] and end >= span[0]:
            return None
        if (start if count == 0 else end) < span[0]:
            moved += new_count - count
    return moved


def carry(current: list[ReconciledFinding], previous: Sequence[ReconciledFinding],
          changes: Mapping[str, Sequence[Hunk]] | None,
          ) -> tuple[list[ReconciledFinding], list[ReconciledFinding]]:
    """This review's findings stamped ``new``/``open`` and the previous ones carried
    ``open`` (at their lines at the new head); and the ``fixed`` ones. ``changes`` None
    (the last head is not in the repository): every line counts as changed."""
    by_key = {f.finding_key: f for f in reversed(current)}
    by_place: dict[str, list[tuple[ReconciledFinding, Span, frozenset[str]]]] = (
        defaultdict(list))
    for finding in current:
        finding.state = "new"
        ident = identify(finding)
        by_place[ident.normalized_location].append(
            (finding, line_range(finding.location), content_words(ident.normalized_description)))
    carried: list[ReconciledFinding] = []
    fixed: list[ReconciledFinding] = []
    for old in previous:
        span = line_range(old.location)
        path = normalize_path(split_location(old.location)[0])
        moved = None if changes is None else shift(span, changes.get(path, ()))
        if moved is not None and span is not None:
            span = (span[0] + moved, span[1] + moved)
        ident = identify(old)
        terms = content_words(ident.normalized_description)
        again = by_key.get(old.finding_key) or next(
            (f for f, other, words in by_place.get(ident.normalized_location, ())
             if near(span, other) and similarity(terms, words) >= THRESHOLD), None)
        if again is not None:
            again.state = "open"
        elif moved is None:
            fixed.append(old.model_copy(update={"state": "fixed"}))
        else:
            location = old.location if span is None else _LINES.sub(
                f":{span[0]}" + (f"-{span[1]}" if span[1] > span[0] else ""), old.location)
            carried.append(old.model_copy(update={
                "state": "open", "location": location, "acknowledged": None,
                "ack_match": None, "ack_reason": None,
                "generated_id": f"F-{len(current) + len(carried) + 1:03d}"}))
    return current + carried, fixed
