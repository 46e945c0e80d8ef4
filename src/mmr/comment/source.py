"""Where ``mmr comment`` gets the verdict: a finished job, or a saved JSON document."""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from mmr.config.paths import jobs_dir
from mmr.errors import MmrError, UsageError
from mmr.models import ReconciledResults
from mmr.review.job_verdict import finished_job
from mmr.review.results import job_results
from mmr.store.jobs import JobStore


def load_results(*, job: str | None, results_file: str | None) -> ReconciledResults:
    """The verdict of ``job`` (the results pipeline, as ``mmr results``) or of the file."""
    if results_file is not None and job is None:
        return _from_file(Path(results_file))
    if job is None or results_file is not None:
        raise UsageError("Give exactly one of --job <job-id> and --results <file>.")

    store = JobStore(jobs_dir())
    finished_job(store, job)
    return job_results(store, job)


def _from_file(path: Path) -> ReconciledResults:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise MmrError(f"Cannot read {path}: {exc.strerror or exc}") from None
    try:
        return ReconciledResults.model_validate_json(text)
    except ValidationError as exc:
        first = str(exc).splitlines()[0]
        raise MmrError(f"{path} is not a verdict document (mmr review --format json): "
                       f"{first}") from None
