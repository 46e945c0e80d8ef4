"""The deterministic part of the results pipeline: a job's files → per-channel results and
reconciled findings, before acks (spec ch. 04 §4 steps 2-3).

Everything here is a function of what :class:`StageInputs` holds (read through the job
store, so a run's held writes are seen) and of the repository questions
:mod:`mmr.probes` records; that is what lets :mod:`mmr.review.stage_memo` keep the
:class:`Stage` with the job and load it back instead of recomputing it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mmr.models import ChannelResult, Finding, ParsedOutput, ReconciledFinding
from mmr.parsers import parse_channel_output
from mmr.reconcile.anchoring import DiffScope
from mmr.reconcile.reconciler import reconcile
from mmr.review.channel_results import ChannelFilesView, channel_result
from mmr.secrets.credentials import SECRETS_SOURCE
from mmr.secrets.reply_redaction import redact_channel_result
from mmr.store.jobs import JobStore
from mmr.store.records import JobRecord


@dataclass(frozen=True)
class StageInputs:
    """What the stage is computed from, read once per results run."""

    job: JobRecord
    diff: str | None
    scope: DiffScope | None
    include_raw: bool
    files: dict[str, ChannelFilesView]
    #: ``channels/mmr-secrets.json`` as text, when no real channel owns that name.
    secret_findings: str | None

    @property
    def repo_root(self) -> Path | None:
        return Path(self.job.project_root) if self.job.project_root else None

    @property
    def identities(self) -> dict[str, str]:
        return {name: entry.compensator for name, entry in self.job.channels.items()
                if entry.compensator}


@dataclass(frozen=True)
class Stage:
    """Per-channel results (redacted) and the three reconciled lists, acks not applied;
    the off-diff lists carry their ``O-``/``U-`` generated ids."""

    per_channel: dict[str, ChannelResult]
    in_diff: list[ReconciledFinding]
    outside_diff: list[ReconciledFinding]
    unanchored: list[ReconciledFinding]


def read_inputs(store: JobStore, job: JobRecord, diff: str | None, scope: DiffScope | None,
                include_raw: bool) -> StageInputs:
    files = {name: ChannelFilesView(output=store.read_channel_output(job.job_id, name),
                                    log=store.read_log(job.job_id, name))
             for name in job.channels}
    secrets = (None if SECRETS_SOURCE in job.channels
               else store.read_channel_output(job.job_id, SECRETS_SOURCE))
    return StageInputs(job, diff, scope, include_raw, files, secrets)


def compute_stage(inputs: StageInputs) -> Stage:
    per_channel = {}
    channel_findings: dict[str, list[Finding]] = {}
    outside: dict[str, list[Finding]] = {}
    unanchored: dict[str, list[Finding]] = {}
    memo: dict[str, str] = {}  # each distinct text is redacted once
    for name, entry in inputs.job.channels.items():
        result = channel_result(entry, inputs.files[name], inputs.scope,
                                include_raw=inputs.include_raw, repo_root=inputs.repo_root)
        result = redact_channel_result(result, memo)
        per_channel[name] = result
        if result.status == "completed":  # the entry's findings, already redacted
            channel_findings[name] = list(result.findings)
            outside[name] = list(result.outside_diff_findings or ())
            unanchored[name] = list(result.unanchored_findings or ())
    secrets = _secret_findings(inputs.secret_findings)
    if secrets:
        channel_findings[SECRETS_SOURCE] = secrets
    identities = inputs.identities
    return Stage(per_channel, reconcile(channel_findings, identities=identities),
                 _off_diff(outside, identities, "O"), _off_diff(unanchored, identities, "U"))


def _off_diff(channel_findings: dict[str, list[Finding]], identities: dict[str, str],
              letter: str) -> list[ReconciledFinding]:
    """Reconcile one off-diff place on its own; generated ids are ``O-001``/``U-001`` so
    they never collide with the in-diff ``F-NNN``."""
    if not any(channel_findings.values()):
        return []
    merged = reconcile(channel_findings, identities=identities)
    for finding in merged:
        if finding.generated_id is not None:
            finding.generated_id = letter + finding.generated_id[1:]
    return merged


def _secret_findings(raw: str | None) -> list[Finding]:
    if raw is None:
        return []
    parsed = parse_channel_output(raw, "default")
    return list(parsed.findings) if isinstance(parsed, ParsedOutput) else []
