"""What a review covered: the diff's size, and what each channel did not see."""

from __future__ import annotations

import re

from mmr.git import TEXT_NOT_SHOWN
from mmr.models import ChannelCoverage, Coverage
from mmr.reconcile.anchoring import DiffScope
from mmr.review.channel_results import SKIP_REASON_TEXT
from mmr.secrets.credential_patterns import marker_pattern
from mmr.store.records import JobRecord
from mmr.unidiff.sections import split_sections
from mmr.unidiff.walk import header_path, walk_diff

_BINARY = re.compile(r"Binary files (.+) and (.+) differ")


def job_coverage(job: JobRecord, scope: DiffScope | None, diff: str) -> Coverage:
    """Files and lines of the reviewed diff (as stored: redacted), its redacted credentials,
    the run-wide ``diff_exclude`` exclusions, each channel's own exclusions, and the
    channels that saw nothing because of the diff."""
    channels: list[ChannelCoverage] = []
    summarised: dict[str, None] = {}
    for name, entry in job.channels.items():
        extra = entry.model_extra or {}
        files, unreviewed, generated = (_paths(extra.get(key)) for key in (
            "excluded_files", "unreviewed_files", "summarised_files"))
        shards = extra.get("shards") if isinstance(extra.get("shards"), int) else None
        summarised.update(dict.fromkeys(generated))
        skipped = entry.reason if (entry.status == "skipped"
                                   and entry.reason in SKIP_REASON_TEXT) else None
        if files or skipped or unreviewed or shards or generated:
            channels.append(ChannelCoverage(
                channel=name, excluded_files=files, skipped=skipped, shards=shards,
                unreviewed_files=unreviewed or None, summarised_files=generated or None))
    excluded_files = list(job.excluded_files or [])
    return Coverage(
        files=len(scope.touched) if scope else 0,
        lines_added=scope.added if scope else 0,
        lines_removed=scope.removed if scope else 0,
        diff_lines=diff.count("\n") + (1 if diff and not diff.endswith("\n") else 0),
        redacted_credentials=len(marker_pattern().findall(diff)),
        excluded_files=excluded_files,
        channels=channels,
        partial=bool(excluded_files) or TEXT_NOT_SHOWN in diff or any(
            c.excluded_files or c.skipped or c.unreviewed_files for c in channels),
        binary_files=binary_files(diff) or None,
        summarised_files=list(summarised) or None,
        unshown_text_files=unshown_text_files(diff) or None,
    )


def _paths(value: object) -> list[str]:
    return [str(p) for p in value] if isinstance(value, list) else []


def binary_files(diff: str) -> list[str]:
    """The files ``diff`` shows only as ``Binary files A and B differ`` (B, or A when
    the file was deleted), in diff order."""
    found: list[str] = []
    for line in walk_diff(diff):
        matched = _BINARY.fullmatch(line.text) if line.kind == "header" else None
        if matched is not None:
            side = matched[2] if matched[2] != "/dev/null" else matched[1]
            path = header_path(side)
            if path is not None and path not in found:
                found.append(path)
    return found


def unshown_text_files(diff: str) -> list[str]:
    """The changed text files whose diff was over the output cap (no reviewer read them)."""
    return [section.display_path for section in split_sections(diff)[1]
            if any(line.rstrip("\r\n") == TEXT_NOT_SHOWN for line in section.lines)]
