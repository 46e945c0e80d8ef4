"""The results pipeline: a finished job → its verdict document.

Shared by ``review --sync``, ``mmr results`` and ``mmr reconcile``, so the same job state
always gives the same document: per-channel results (in
:mod:`mmr.review.channel_results`), reconciliation, acks, counts, gate and verdict.

Whatever a model sent back is redacted here, once, before anything is stored or printed
(:mod:`mmr.secrets.reply_redaction`): a credential repeated in a finding or an error
reaches no format and no ``results.json``.

Secret findings are stored with the job as
``channels/mmr-secrets.json`` — a findings object, not a job channel, so they join
reconciliation under the source ``mmr-secrets`` without counting as a reviewer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from mmr.acks.apply import AckPolicy, apply_acks
from mmr.acks.store import AckStore
from mmr.config.paths import mmr_home
from mmr.errors import StoreWriteError
from mmr.formatters.json import render_json
from mmr.log import stderr_line
from mmr.models import Finding, ParsedOutput, ReconciledFinding, ReconciledResults
from mmr.parsers import parse_channel_output
from mmr.reconcile.anchoring import DiffScope
from mmr.reconcile.carry import carry
from mmr.reconcile.reconciler import reconcile
from mmr.reconcile.verdict import JobFacts, OffDiff, build_results
from mmr.review.channel_results import channel_result
from mmr.review.coverage import job_coverage
from mmr.review.voices import reviewer_identities
from mmr.secrets.credentials import SECRETS_SOURCE as SECRET_FINDINGS_SOURCE
from mmr.secrets.reply_redaction import redact_channel_result
from mmr.store.held import report_unsaved
from mmr.store.job_status import format_elapsed
from mmr.store.jobs import JobStore
from mmr.store.pulls import PULL_STATE, PullState, read_stored
from mmr.store.records import JobRecord, parse_timestamp
from mmr.vocabulary import DEFAULT_FIX_THRESHOLD, ReconcileRule

#: Stamps ``acknowledged``/``ack_match``/``ack_reason``; built per the trust policy.
AckApplier = Callable[[list[ReconciledFinding]], list[ReconciledFinding]]


def job_results(store: JobStore, job_id: str, *, include_raw: bool = False,
                apply_acks: AckApplier | None = None,
                warn: Callable[[str], None] | None = None) -> ReconciledResults:
    """The verdict document of job ``job_id`` as it stands on disk.

    ``apply_acks`` defaults to the acks the job's persisted trust policy allows
    (:func:`job_ack_applier`); ``warn`` receives ack-loading warnings (stderr by default).
    """
    job = store.load(job_id)
    diff = store.read_diff(job_id)
    repo_root = Path(job.project_root) if job.project_root else None
    scope = DiffScope.from_diff(diff, repo_root) if diff and diff.strip() else None
    per_channel = {}
    channel_findings: dict[str, list[Finding]] = {}
    outside: dict[str, list[Finding]] = {}
    unanchored: dict[str, list[Finding]] = {}
    memo: dict[str, str] = {}  # each distinct text is redacted once
    for name, entry in job.channels.items():
        result = channel_result(entry, store.read_channel_output(job_id, name),
                                store.read_log(job_id, name), scope, include_raw=include_raw,
                                repo_root=repo_root)
        result = redact_channel_result(result, memo)
        per_channel[name] = result
        if result.status == "completed":  # the entry's findings, already redacted
            channel_findings[name] = list(result.findings)
            outside[name] = list(result.outside_diff_findings or ())
            unanchored[name] = list(result.unanchored_findings or ())
    secrets = _secret_findings(store, job)
    if secrets:
        channel_findings[SECRET_FINDINGS_SOURCE] = secrets
    identities = reviewer_identities(
        {name: entry.compensator for name, entry in job.channels.items()}, job.voices)
    rule = job.reconcile or "reference"
    applier = apply_acks if apply_acks is not None else job_ack_applier(job, warn=warn)
    reconciled = reconcile(channel_findings, identities=identities, rule=rule)
    pull = read_stored(PullState, store.existing(job_id).root / PULL_STATE)
    if pull is not None:  # the last review's findings: carried open, or fixed
        reconciled, fixed = carry(reconciled, pull.previous, pull.changes)
    reconciled = _apply_acks(reconciled, applier)
    off_diff = OffDiff(
        outside_diff=_off_diff(outside, identities, rule, applier, "O"),
        unanchored=_off_diff(unanchored, identities, rule, applier, "U"),
    )
    facts = JobFacts(
        job_id=job.job_id,
        fix_threshold=job.fix_threshold or DEFAULT_FIX_THRESHOLD,
        min_completed_channels=job.min_completed_channels,
        identities=identities,
        total_elapsed=total_elapsed(job),
        trust_mode=job.trust_mode,
        proposed_acks=job.proposed_acks,
        proposed_config_change=job.proposed_config_change,
        session_id=job.session_id,
        round=job.round if isinstance(job.round, int) else None,
        outside_diff_gate=job.outside_diff_findings or "advisory",
        coverage=job_coverage(job, scope, diff or ""),
    )
    results = build_results(per_channel, reconciled, facts, off_diff)
    if pull is not None:
        results.pull_request, results.fixed_findings = pull.pull_request, fixed
    return results


def _off_diff(channel_findings: dict[str, list[Finding]], identities: dict[str, str],
              rule: ReconcileRule, applier: AckApplier,
              letter: str) -> list[ReconciledFinding]:
    """Reconcile one off-diff place on its own; generated ids are ``O-001``/``U-001`` so
    they never collide with the in-diff ``F-NNN``."""
    if not any(channel_findings.values()):
        return []
    merged = _apply_acks(reconcile(channel_findings, identities=identities, rule=rule),
                         applier)
    for finding in merged:
        if finding.generated_id is not None:
            finding.generated_id = letter + finding.generated_id[1:]
    return merged


def job_ack_applier(job: JobRecord, *,
                    warn: Callable[[str], None] | None = None) -> AckApplier:
    """Apply user acks and the project acks the job's ``review_controls`` allow:
    the same policy at ``review --sync`` time and for a later ``mmr results``."""

    project_root = Path(job.project_root) if job.project_root else None
    store = AckStore(user_root=mmr_home(), project_root=project_root)
    policy = AckPolicy.from_review_controls(job.review_controls)
    return lambda findings: apply_acks(findings, store, policy, warn=warn)


def save_results(store: JobStore, results: ReconciledResults,
                 json_text: str | None = None,
                 warn: Callable[[str], None] | None = None) -> None:
    """Overwrite the job's ``results.json`` with the JSON form, whatever was printed.

    ``json_text`` is :func:`render_json` of ``results`` when the caller has it already.
    A store that cannot take the file (disk full, read-only: a
    :class:`~mmr.errors.StoreWriteError`) costs the saved copy, never the verdict: the
    caller still prints it and exits with its code, after ``warn`` (stderr by default).
    While the run holds the job's writes (:func:`mmr.store.held.holding`) the run warns.
    """
    if results.job_id is not None:
        text = render_json(results) if json_text is None else json_text
        try:
            store.write_results_text(results.job_id, text)
        except StoreWriteError as exc:
            report_unsaved(store.existing(results.job_id).root, exc, warn or stderr_line,
                           store.reported_unsaved)


def save_secret_findings(store: JobStore, job_id: str, findings: Sequence[Finding]) -> None:
    """Keep the run's secret findings with the job, so ``mmr results`` shows them too."""
    if not findings:
        return
    document = {"approved": False, "findings": [f.to_json_dict() for f in findings],
                "summary": f"{len(findings)} committed credential(s)"}
    store.write_channel_output_object(job_id, SECRET_FINDINGS_SOURCE, document)


def total_elapsed(job: JobRecord) -> str:
    """The review's wall time: latest ``completed_at`` − earliest ``started_at`` over every
    channel that ran, whatever it ended as (a review whose channels all failed
    after seconds no longer reads ``0s``); injected channels are left out.
    ``0s`` when no channel ran."""
    starts, ends = [], []
    for entry in job.channels.values():
        start, end = parse_timestamp(entry.started_at), parse_timestamp(entry.completed_at)
        if not entry.injected and start is not None and end is not None:
            starts.append(start)
            ends.append(end)
    if not starts:
        return "0s"
    return format_elapsed(round((max(ends) - min(starts)).total_seconds() * 1000))


def _secret_findings(store: JobStore, job: JobRecord) -> list[Finding]:
    if SECRET_FINDINGS_SOURCE in job.channels:
        return []  # a real channel of that name owns the file
    raw = store.read_channel_output(job.job_id, SECRET_FINDINGS_SOURCE)
    if raw is None:
        return []
    parsed = parse_channel_output(raw, "default")
    return list(parsed.findings) if isinstance(parsed, ParsedOutput) else []


def _apply_acks(findings: list[ReconciledFinding],
                apply_acks: AckApplier) -> list[ReconciledFinding]:
    """Stamp acks; any failure of the ack store means no acks at all (fail safe).

    The applier gets shallow copies, so one that stamps in place and then fails leaves
    ``findings`` unstamped; a deep copy of every shingle list cost seconds at 4,000
    findings and protects nothing more (appliers set ack fields, they do not edit lists).
    """
    try:
        return apply_acks([finding.model_copy() for finding in findings])
    except Exception:
        return findings
