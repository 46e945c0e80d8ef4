"""``mmr jobs list | prune``: the stored review jobs.

``list`` prints one object per loadable job, newest first; ``prune`` deletes jobs older
than ``defaults.job_retention_days`` (user config plus the project root's working-tree
``.mmr.yaml``, no trust gating: it is local housekeeping) and prints one compact line.
Session records that name a pruned job are left alone; a stale id there is harmless. The
job store is imported when a sub-command runs (see "Imports" in :mod:`mmr.cli.app`).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import typer

from mmr.cache.store import open_review_cache
from mmr.cli.groups import command_group
from mmr.cli.output import write_json, write_report
from mmr.config.paths import find_project_root, jobs_dir, mmr_home

app: typer.Typer = command_group("Manage review jobs.")


@app.command("list")
def list_jobs() -> int:
    """List review jobs, newest first."""
    from mmr.store.jobs import JobStore

    return write_json([job.list_entry() for job in JobStore(jobs_dir()).list_jobs()])


@app.command("prune")
def prune_jobs() -> int:
    """Delete jobs older than defaults.job_retention_days (default 7), and prune the review
    cache (expired replies, then the least recently used past defaults.cache.max_size_mb)."""
    from mmr.config_edit.scope import load
    from mmr.store.jobs import JobStore

    loaded = load(find_project_root())
    days = loaded.defaults.job_retention_days
    pruned = JobStore(jobs_dir()).prune(days, datetime.now(UTC))
    cache = loaded.defaults.cache
    cache_pruned = open_review_cache(mmr_home(), max_age_days=float(cache.max_age),
                                     max_size_mb=cache.max_size_mb).prune()
    write_report(json.dumps({"pruned": len(pruned), "retention_days": days,
                             "cache_pruned": cache_pruned}, separators=(",", ":")))
    return 0
