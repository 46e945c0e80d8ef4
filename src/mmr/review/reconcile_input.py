"""``mmr reconcile``: fold an outside reviewer's findings into a finished job.

The checks run in MMR 4.0.1's order and the first failure wins: the job (exit 5), every
channel terminal (exit 1), the channel name (exit 5), the input (exit 5). Nothing is
written before all of them pass (a job whose worker is still at work counts as running).
Two reconciles of one job commit in turn, and no reader ever sees the new channel
unfinished (:func:`inject_channel`).

A finding that fails validation is named: ``Invalid input: Finding missing location
(finding 3 of 5, index 2)``. The message up to the parenthesis is MMR 4.0.1's.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from mmr.errors import MmrError, ReconcileInputError
from mmr.fs import atomic_write_text
from mmr.models import ParsedOutput
from mmr.parsers import InvalidExternalInput, normalize_external_input, read_input
from mmr.parsers.brackets import Balanced, BracketIndex
from mmr.parsers.scanners import extract_first_object
from mmr.parsers.text import decode_json, fix_trailing_commas, strip_markdown_fences
from mmr.parsers.validate import strict_finding
from mmr.secrets.credentials import SECRETS_SOURCE
from mmr.store.held import remove
from mmr.store.jobs import ChannelExistsError, JobStore
from mmr.store.records import ChannelJobEntry, JobRecord, iso_timestamp
from mmr.store.session_ids import printable

_CHANNEL_NAME = re.compile(r"[a-zA-Z0-9._-]+")
#: ``channels/mmr-secrets.json`` holds the run's secret findings.
_RESERVED = frozenset({SECRETS_SOURCE})
#: How long a commit waits for another reconcile's commit to the same job.
COMMIT_WAIT_S = 30.0


def injected_channel_name(raw: str, job: JobRecord) -> str:
    """The lower-cased channel name for ``raw``; exit 5 when invalid or taken."""
    shown = printable(raw)
    if _CHANNEL_NAME.fullmatch(raw) is None:
        raise ReconcileInputError(f'Invalid channel name: "{shown}"')
    name = raw.lower()
    if name in _RESERVED:
        raise ReconcileInputError(
            f'Invalid channel name: "{shown}" is reserved for the secret findings of a review')
    if any(existing.lower() == name for existing in job.channels):
        raise ChannelExistsError(f"Channel '{name}' already exists in job {job.job_id}")
    return name


def external_findings(source: str, stdin: TextIO | None = None) -> ParsedOutput:
    """Read ``--input`` (file, ``-`` or inline JSON) and validate it strictly."""
    return parse_external(read_input(source, stdin))


def parse_external(text: str) -> ParsedOutput:
    """:func:`normalize_external_input`, with the failing finding named in the message."""
    try:
        return normalize_external_input(text)
    except InvalidExternalInput as exc:
        # Only a finding's own check says "Finding …"; the rest name no finding.
        where = locate_invalid_finding(text, exc.detail) if exc.detail.startswith(
            "Finding ") else None
        if where is None:
            raise
        raise InvalidExternalInput(f"{exc.detail} ({where})") from None


def locate_invalid_finding(text: str, detail: str) -> str | None:
    """``finding <n> of <total>, index <i>`` for the first finding failing with ``detail``.

    Tries the lists the input could hold (the whole text, its first object's ``findings``,
    each bracketed array) and accepts one only if its first invalid finding fails with
    exactly ``detail``; otherwise None, and the message stays MMR 4.0.1's.
    """
    for findings in _candidate_lists(strip_markdown_fences(text).strip()):
        for index, item in enumerate(findings):
            try:
                strict_finding(item)
            except ValueError as exc:
                if str(exc) == detail:
                    return f"finding {index + 1} of {len(findings)}, index {index}"
                break
    return None


def _candidate_lists(text: str) -> Iterator[list[Any]]:
    for candidate in _candidate_texts(text):
        try:
            value = decode_json(fix_trailing_commas(candidate))
        except (ValueError, RecursionError):  # RecursionError: JSON nested too deep
            continue
        if isinstance(value, dict):
            value = value.get("findings")
        if isinstance(value, list):
            yield value


def _candidate_texts(text: str) -> Iterator[str]:
    yield text
    with contextlib.suppress(ValueError):
        yield extract_first_object(text)
    index = BracketIndex(text, "[]")
    for _, start in index.opener_indices():
        result = index.scan(start)
        if isinstance(result, Balanced):
            yield text[start : result.end + 1]


def inject_channel(store: JobStore, job_id: str, name: str, parsed: ParsedOutput) -> None:
    """Save ``name``'s findings object, mark it completed, then register it.

    MMR 4.0.1's order (register, save, complete) leaves a moment in which the channel reads
    ``dispatched``: a concurrent ``mmr reconcile`` or ``mmr results`` would then answer
    "Channels still running", and a reader could sweep it as a dead worker's. Registering
    last makes the channel appear already completed; the files end as MMR 4.0.1's.
    Commits to one job take turns, and the name is checked again inside, so of two runs
    injecting one name exactly one wins.
    """
    document = {"approved": parsed.approved,
                "findings": [finding.to_json_dict() for finding in parsed.findings],
                "summary": parsed.summary}
    with _one_commit_at_a_time(store.paths(job_id).root, job_id):
        injected_channel_name(name, store.load(job_id))
        remove(store.paths(job_id).status_file(name))  # a crashed attempt's
        # store.write_channel_output_object, minus the indentation: for thousands of
        # findings the C encoder is ten times faster, and every reader parses the JSON.
        atomic_write_text(store.paths(job_id).output_file(name),
                          json.dumps(document, ensure_ascii=False))
        now = iso_timestamp()
        store.update_channel(job_id, name, status="completed", started_at=now, completed_at=now)
        store.register_channel(job_id, name, ChannelJobEntry(
            status="dispatched", auth="ok", output_parser="default", injected=True))


@contextlib.contextmanager
def _one_commit_at_a_time(job_dir: Path, job_id: str) -> Iterator[None]:
    """An exclusive ``flock`` on the job directory itself: it adds no file to the job, and
    unlike ``worker.lock`` no reader takes it for a running worker."""
    fd = os.open(job_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        deadline = time.monotonic() + COMMIT_WAIT_S
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise MmrError(f"Job {job_id} is being changed by another `mmr reconcile`; "
                                   "retry in a moment") from None
                time.sleep(0.02)
        yield
    finally:
        os.close(fd)  # releases the lock
