"""A pull request's findings across pushes: new, still open, or fixed.

The last review's findings are set against this review's. A previous finding is ``open``
when a reviewer reports it again (the same ``finding_key``, or the calibrated rule's same
defect in other words at nearby lines), or when none of its lines changed since the last
review's head: nobody had reason to report it again, so it still stands, and still gates.
It is ``fixed`` when its lines changed and no reviewer reports it again.
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
from mmr.unidiff.walk import header_path

Changes = Mapping[str, Sequence[Hunk]]

_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_LINES = re.compile(r":(\d+)(?:-(\d+))?\Z")


def parse_changes(zero_context_diff: str) -> dict[str, list[Hunk]]:
    """The hunks of each old path in a ``git diff -U0`` (a new file is under its new path)."""
    changes: dict[str, list[Hunk]] = {}
    hunks: list[Hunk] = []
    old: str | None = None
    body = 0  # lines of the current hunk still to skip: a removed "--- x" is not a header
    for line in zero_context_diff.splitlines():
        if body > 0:
            body -= line[:1] in ("+", "-")
        elif line.startswith("--- "):
            old = header_path(line[4:])
        elif line.startswith("+++ "):
            hunks = changes.setdefault(old or header_path(line[4:]) or "", [])
        elif match := _HUNK.match(line):
            start, count, new_start, new_count = (int(g) if g is not None else 1
                                                  for g in match.groups())
            hunks.append((start, count, new_start, new_count))
            body = count + new_count
    return changes


def shift(span: tuple[int, int] | None, hunks: Sequence[Hunk]) -> int | None:
    """How many lines a range moved between the two heads; None when a hunk touched it
    (a range without lines is touched by any hunk of its file)."""
    if span is None:
        return None if hunks else 0
    moved = 0
    for start, count, _, new_count in hunks:
        if count == 0:  # lines inserted after `start`
            if span[0] <= start < span[1]:
                return None
            moved += new_count if start < span[0] else 0
        elif start <= span[1] and start + count - 1 >= span[0]:
            return None
        elif start + count - 1 < span[0]:
            moved += new_count - count
    return moved


class _Reported:
    """This review's findings, indexed to find the one a previous finding matches."""

    def __init__(self, findings: Sequence[ReconciledFinding]) -> None:
        self.by_key = {f.finding_key: f for f in reversed(findings)}
        self.by_place: dict[str, list[tuple[ReconciledFinding, tuple[int, int] | None,
                                            frozenset[str]]]] = defaultdict(list)
        for f in findings:
            ident = identify(f)
            self.by_place[ident.normalized_location].append(
                (f, line_range(f.location), content_words(ident.normalized_description)))

    def find(self, previous: ReconciledFinding,
             span: tuple[int, int] | None) -> ReconciledFinding | None:
        if previous.finding_key in self.by_key:
            return self.by_key[previous.finding_key]
        ident = identify(previous)
        terms = content_words(ident.normalized_description)
        for finding, other, words in self.by_place.get(ident.normalized_location, ()):
            if near(span, other) and similarity(terms, words) >= THRESHOLD:
                return finding
        return None


def carry(current: list[ReconciledFinding], previous: Sequence[ReconciledFinding],
          changes: Changes | None) -> tuple[list[ReconciledFinding], list[ReconciledFinding]]:
    """This review's findings stamped ``new``/``open``, followed by the previous findings
    carried ``open`` (moved to their lines at the new head); and the ``fixed`` ones.

    ``changes`` None (the last head is not in the repository): every line counts as changed.
    """
    reported = _Reported(current)
    for finding in current:
        finding.state = "new"
    carried, fixed = [], []
    number = len(current)
    for old in previous:
        span = line_range(old.location)
        path = normalize_path(split_location(old.location)[0])
        moved = None if changes is None else shift(span, changes.get(path, ()))
        again = reported.find(old, span if moved is None or span is None
                              else (span[0] + moved, span[1] + moved))
        if again is not None:
            again.state = "open"
        elif moved is None:
            fixed.append(old.model_copy(update={"state": "fixed"}))
        else:
            number += 1
            carried.append(old.model_copy(update={
                "state": "open", "location": _moved_location(old.location, moved),
                "generated_id": None if old.id is not None else f"F-{number:03d}"}))
    return current + carried, fixed


def _moved_location(location: str, moved: int) -> str:
    """``a.py:10-12`` moved by ``moved`` lines; other forms are left as they are."""
    if not moved:
        return location
    return _LINES.sub(lambda m: ":" + "-".join(str(int(g) + moved) for g in m.groups() if g),
                      location)
