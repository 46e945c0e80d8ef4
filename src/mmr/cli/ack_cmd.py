"""``mmr ack add | list | rm | prune``: acknowledged findings.

Acks live in two scopes: ``project`` (``<project root>/.mmr/acks/``, the default for
``add``/``rm``) and ``user`` (``<MMR root>/acks/``). This is the operator's own tool on
their own machine, so it always works on the working tree, with no trust gating.

``add`` copies location and shingle from the reconciled finding a past review reported
(its job's ``results.json``); ``rm`` reports whether the file existed (additive); ``prune``
removes acks whose findings have not been seen for ``ack_retention_days`` (MMR 4.0.1's
prune removes nothing) and prints its report as one compact line, as ``jobs prune``
does. The acks core is imported when a sub-command runs (see "Imports" in
:mod:`mmr.cli.app`).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from mmr.cli.groups import command_group
from mmr.cli.output import write_json, write_report
from mmr.config.paths import find_project_root, jobs_dir, mmr_home
from mmr.errors import MmrError, UsageError
from mmr.log import stderr_line

if TYPE_CHECKING:
    from mmr.acks.store import AckStore

app: typer.Typer = command_group("Manage finding acknowledgments.")

Scope = Literal["project", "user"]
PruneScope = Literal["project", "user", "all"]

FindingKey = Annotated[str | None, typer.Argument(
    metavar="FINDING_KEY", show_default=False, help="The finding_key (40 hex characters).")]
ScopeOption = Annotated[Scope, typer.Option(
    "--scope", help="project (<project root>/.mmr/acks) or user (<MMR root>/acks).")]

BASE_REF_HINT = (
    "[mmr] note: reviews read project acks from committed history (trust mode base-ref), "
    "never from the working tree: commit {path}. A review whose diff adds it (--base, a "
    "pull request, CI) stops at the ratification gate until it is on the default branch; "
    "to use it on this branch now, add --accept-new-acks to that review"
)


def _ack_store() -> AckStore:
    from mmr.acks.store import AckStore

    return AckStore(user_root=mmr_home(), project_root=find_project_root())


def _required_key(action: str, key: str | None) -> str:
    from mmr.acks.record import check_finding_key

    if not key:
        raise UsageError(f"mmr ack {action}: <finding-key> required")
    return check_finding_key(key)


@app.command("add")
def add(
    *,
    finding_key: FindingKey = None,
    job: Annotated[str | None, typer.Option(
        "--job", help="The job that reported the finding (default: search newest first).")] = None,
    reason: Annotated[str | None, typer.Option(
        "--reason", help="Why the finding is accepted.")] = None,
    scope: ScopeOption = "project",
) -> int:
    """Acknowledge a finding a past review reported, so it no longer blocks."""
    from mmr.acks.jobs import check_ack_job_id, find_ack_source, source_not_found_message
    from mmr.acks.record import new_ack_record

    key = _required_key("add", finding_key)
    if job is not None:
        check_ack_job_id(job)
    source = find_ack_source(jobs_dir(), key, job)
    if source is None:
        raise MmrError(source_not_found_message(key, job))
    store = _ack_store()
    record = new_ack_record(key, source.location, source.description_shingle, reason=reason,
                            description=source.description if scope == "project" else None,
                            member_keys=source.member_keys)
    path = store.add(record, scope)
    if scope == "project":
        _hint_base_ref(store, str(path))
    return write_json({"added": key, "scope": scope})


def _hint_base_ref(store: AckStore, path: str) -> None:
    """Say so when a local review would not see this working-tree ack yet: reviews read
    project acks from committed history."""
    from mmr.trust.modes import is_ci, is_git_repository

    root = store.project_root
    if root is None or is_ci() or not is_git_repository(root):
        return
    stderr_line(BASE_REF_HINT.format(path=path))


@app.command("list")
def list_acks(
    *,
    scope: Annotated[Scope | None, typer.Option(
        "--scope", help="Accepted for compatibility; list always shows both scopes.")] = None,
) -> int:
    """List acks of both scopes (user first; a project ack replaces a user one)."""
    del scope  # accepted, and both scopes listed anyway, as MMR 4.0.1 does
    return write_json([record.to_json_dict() for record in _ack_store().list_all()])


@app.command("rm")
def remove(*, finding_key: FindingKey = None, scope: ScopeOption = "project") -> int:
    """Remove an ack from one scope (succeeds when it is not there)."""
    key = _required_key("rm", finding_key)
    existed = _ack_store().remove(key, scope)
    return write_json({"removed": key, "scope": scope, "existed": existed})


@app.command("prune")
def prune(
    *,
    scope: Annotated[PruneScope, typer.Option(
        "--scope", help="Which acks to consider: project, user or all.")] = "all",
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="List what would be removed; remove nothing.")] = False,
    older_than: Annotated[float | None, typer.Option(
        "--older-than", metavar="DAYS",
        help="Retention for this run (default defaults.ack_retention_days, 90).")] = None,
) -> int:
    """Remove acks whose findings have not been seen within the retention period."""
    from mmr.acks.jobs import iter_job_findings
    from mmr.acks.prune import check_retention_days, prune_acks
    from mmr.acks.record import ACK_SCOPES

    if older_than is not None:
        # `30` rather than `30.0` in the report when the flag was a whole number.
        whole = int(older_than) if older_than.is_integer() else older_than
        days = check_retention_days(whole)  # UsageError when < 0
    else:
        days = _configured_ack_retention()
    report = prune_acks(
        _ack_store(), ACK_SCOPES if scope == "all" else (scope,),
        retention_days=days, now=datetime.now(UTC), dry_run=dry_run,
        jobs=iter_job_findings(jobs_dir()), scope_label=scope,
    )
    # One compact line, as `mmr jobs prune` prints its report (MMR 4.0.1's form there).
    write_report(json.dumps(report.to_json_dict(), ensure_ascii=False, separators=(",", ":")))
    return 0


def _configured_ack_retention() -> float:
    """``defaults.ack_retention_days`` from user + working-tree project config (no gating)."""
    from mmr.config_edit.scope import load

    return load(find_project_root()).defaults.ack_retention_days
