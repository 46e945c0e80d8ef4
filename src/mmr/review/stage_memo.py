"""``results-memo.json``: the results pipeline's pre-acks stage kept with the job (issue 19).

A finished job's ``mmr results`` (and the worker, ``review --sync``, ``results --format``
again, ``mmr reconcile``) recomputes the same :class:`~mmr.review.stage.Stage` from the
same files; the memo loads it back instead, but only when that is provably the same:

* its **key** is a SHA-256 over a canonical JSON of everything the stage is computed
  from — mmr's version, :data:`MEMO_FORMAT`, a fingerprint of the stage's source files,
  ``include_raw``, the job id, ``project_root``, the diff's digest, every job channel in
  job order (name, job entry, digests of its reply and log), the secret-findings file and
  the identities map — read through the store, so held writes count;
* every repository **probe** the computation asked (:mod:`mmr.probes`: a cited file
  exists, a file's line count, the root's resolved path) is asked again and must get
  the same answer.

Anything else wrong with the file (missing, a symlink, too big, not the shape written
here) means recompute and overwrite. Acks are applied afterwards, every run. The memo is
a cache: writing it never fails a run or prints a warning, and deleting it is always safe.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic_core import PydanticSerializationError

import mmr
from mmr.models import ChannelResult, ReconciledFinding
from mmr.parsers.registry import get_parser, registered_names
from mmr.parsers.run import parser_name
from mmr.probes import recording, still_answered
from mmr.review.stage import Stage, StageInputs, compute_stage
from mmr.store.jobs import JobStore

#: Bump when the stage's meaning or this file's shape changes.
MEMO_FORMAT = 1
#: A memo larger than this is ignored (2,000 findings take about 2 MB).
MAX_MEMO_BYTES = 64 * 1024 * 1024
_SOURCE_DIRS = ("parsers", "reconcile", "secrets", "unidiff")
_SOURCE_FILES = ("models.py", "probes.py", "vocabulary.py", "types.py", "errors.py",
                 "review/stage.py", "review/stage_memo.py", "review/channel_results.py",
                 "store/records.py", "store/job_status.py")
_PROBE_ANSWERS: dict[str, tuple[type, ...]] = {
    "file": (bool,), "lines": (int, type(None)), "root": (str, type(None))}
_fingerprint: list[str] = []


def stage_for(store: JobStore, inputs: StageInputs) -> Stage:
    """The job's stage: from its memo when that is valid, else computed (and memoised)."""
    key = memo_key(inputs)
    job_id = inputs.job.job_id
    stage = load_stage(store.read_results_memo(job_id, MAX_MEMO_BYTES), key, inputs)
    if stage is not None:
        _name_parsers(inputs)
        return stage
    with recording() as probes:
        stage = compute_stage(inputs)
    if _storable(stage):
        store.write_results_memo(job_id, dump_stage(key, stage, probes))
    return stage


def _name_parsers(inputs: StageInputs) -> None:
    """What parsing would have warned of: an ``output_parser`` name no parser has."""
    for entry in inputs.job.channels.values():
        name = parser_name(entry.output_parser or "default")
        if entry.status == "completed" and name is not None:
            get_parser(name)


def _storable(stage: Stage) -> bool:
    """False when a value would not survive JSON: pydantic writes an infinite or NaN
    telemetry figure (a hand-edited job record) as null."""
    return all(math.isfinite(value)
               for result in stage.per_channel.values() if result.telemetry is not None
               for value in result.telemetry.model_dump().values()
               if isinstance(value, float))


def memo_key(inputs: StageInputs) -> str:
    job = inputs.job
    material = {
        "version": mmr.__version__, "format": MEMO_FORMAT, "source": _source_fingerprint(),
        "include_raw": inputs.include_raw, "job_id": job.job_id,
        "project_root": job.project_root, "diff": _digest(inputs.diff),
        "channels": [[name, entry.model_dump(mode="json"), _digest(inputs.files[name].output),
                      _digest(inputs.files[name].log)] for name, entry in job.channels.items()],
        "secret_findings": _digest(inputs.secret_findings),
        "identities": inputs.identities,
        "parsers": registered_names(),
    }
    canonical = json.dumps(material, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


class _Memo(BaseModel):
    """The file's shape; ``format`` and ``key`` lead it (:func:`_prefix`)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    format: int
    key: str
    probes: list[tuple[str, str, str, bool | int | str | None]]
    per_channel: dict[str, ChannelResult]
    in_diff: list[ReconciledFinding]
    outside_diff: list[ReconciledFinding]
    unanchored: list[ReconciledFinding]
    #: ``generated_id`` is not part of a finding's JSON form: each list's, in order.
    generated_ids: tuple[list[str | None], list[str | None], list[str | None]]


def dump_stage(key: str, stage: Stage, probes: dict[tuple[str, str, str], Any]) -> bytes:
    memo = _Memo.model_construct(
        format=MEMO_FORMAT, key=key,
        probes=[(*probe, answer) for probe, answer in probes.items()],
        per_channel=stage.per_channel, in_diff=stage.in_diff,
        outside_diff=stage.outside_diff, unanchored=stage.unanchored,
        generated_ids=([f.generated_id for f in stage.in_diff],
                       [f.generated_id for f in stage.outside_diff],
                       [f.generated_id for f in stage.unanchored]))
    try:
        return memo.model_dump_json(exclude_none=True).encode()
    except PydanticSerializationError:  # a lone surrogate (undecodable reply bytes)
        document = memo.model_dump(mode="json", exclude_none=True)
        return json.dumps(document, ensure_ascii=True, separators=(",", ":")).encode("ascii")


def load_stage(data: bytes | None, key: str, inputs: StageInputs) -> Stage | None:
    """The memo's stage when ``data`` is a memo of shape, key and probes still valid."""
    # The key leads the file: another job's or run's memo is refused unparsed.
    memo = _parse(data) if data is not None and data.startswith(_prefix(key)) else None
    if (memo is None or memo.format != MEMO_FORMAT or memo.key != key
            or list(memo.per_channel) != list(inputs.job.channels)
            or not all(_is_probe(probe) for probe in memo.probes)
            or not still_answered(memo.probes)):
        return None
    lists = (memo.in_diff, memo.outside_diff, memo.unanchored)
    for found, ids in zip(lists, memo.generated_ids, strict=True):
        if len(found) != len(ids):
            return None
        for finding, generated in zip(found, ids, strict=True):
            finding.generated_id = generated
    return Stage(memo.per_channel, *lists)


def _parse(data: bytes) -> _Memo | None:
    try:
        return _Memo.model_validate_json(data)
    except ValidationError:
        pass
    try:  # the JSON parser refuses a lone surrogate's escape; json.loads takes it
        return _Memo.model_validate(json.loads(data), strict=False)
    except (ValueError, ValidationError, RecursionError):
        return None


def _prefix(key: str) -> bytes:
    return f'{{"format":{MEMO_FORMAT},"key":"{key}",'.encode("ascii")


def _is_probe(probe: tuple[str, str, str, Any]) -> bool:
    """A known kind with an answer of its type (``True`` is no line count)."""
    return type(probe[3]) in _PROBE_ANSWERS.get(probe[0], ())


def _digest(text: str | None) -> str | None:
    # surrogatepass: a lone surrogate and its six-character escape hash differently
    # (encode_text writes both as the escape).
    if text is None:
        return None
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _source_fingerprint() -> str:
    """Size and mtime of the modules that compute the stage: an edited mmr whose version
    string did not change (a development install) never reads an older mmr's memo."""
    if not _fingerprint:
        root = Path(mmr.__file__).parent
        paths = [root / name for name in _SOURCE_FILES]
        for directory in _SOURCE_DIRS:
            try:
                with os.scandir(root / directory) as entries:
                    paths += [Path(e.path) for e in entries if e.name.endswith(".py")]
            except OSError:
                continue
        stamps = []
        for path in sorted(paths):
            try:
                info = path.stat()
            except OSError:
                continue
            stamps.append(f"{path.relative_to(root)}:{info.st_size}:{info.st_mtime_ns}")
        _fingerprint.append(hashlib.sha256("\n".join(stamps).encode()).hexdigest())
    return _fingerprint[0]
