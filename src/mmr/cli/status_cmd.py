"""``mmr status <job-id>``: where a review job stands, as JSON, with an exit code to match.

Exit codes: 0 every channel is terminal and none failed (``skipped`` and, unlike
MMR 4.0.1, ``not_installed`` are not failures of a dispatched channel), 1 a channel is
still running, 2 a channel ``failed``, timed out or failed auth, 5 the job does not exist
or cannot be read. Loading the job runs the dead-worker sweep, so a job whose worker was
killed reports its channels ``failed`` (``reason: worker_died``) and ``"worker": "died"``
instead of "running" forever. The job store is imported when the command runs (see
"Imports" in :mod:`mmr.cli.app`).
"""

from __future__ import annotations

from mmr.cli.output import write_json
from mmr.cli.results_cmd import JobId
from mmr.config.paths import jobs_dir


def status(*, job_id: JobId) -> int:
    """Check the status of a review job."""
    from mmr.store.job_status import status_document, status_exit_code
    from mmr.store.jobs import JobStore

    job = JobStore(jobs_dir()).load(job_id)  # JobNotFoundError: exit 5
    write_json(status_document(job))
    return status_exit_code(job)
