"""Data shapes shared by every part of mmr.

Models are dumped with ``exclude_none=True`` so an absent optional value is omitted
from JSON rather than written as ``null``; field declaration order is MMR 4.0.1's
key order, which scripts comparing JSON byte for byte rely on.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from mmr.vocabulary import Severity, Verdict

ChannelStatus = Literal[
    "dispatched", "running", "completed", "timeout", "failed", "auth_failed", "not_installed",
    "skipped",
]
TERMINAL_STATUSES: frozenset[str] = frozenset(
    {"completed", "timeout", "failed", "auth_failed", "not_installed", "skipped"}
)
JobStatus = Literal["dispatched", "running", "completed"]
Agreement = Literal["consensus", "majority", "unique"]
Confidence = Literal["high", "medium", "low"]
ReportedConfidence = Literal["confirmed", "suspected"]
TrustMode = Literal["base-ref", "untrusted-head", "non-git"]

#: Name prefix of a compensating pass's channel.
COMPENSATING_PREFIX = "compensating-"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)


class Finding(_Model):
    """One issue reported by one channel, after validation."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    severity: Severity
    location: str
    description: str
    suggestion: str = ""
    id: str | None = None
    category: str | None = None
    #: The model's own confidence, from the markdown-findings parser (never keyed).
    reported_confidence: ReportedConfidence | None = None
    #: Exact new text for the lines ``location`` names (``suggestion`` is free text).
    replacement: str | None = None


class ParsedOutput(_Model):
    """A reply that parsed. ``approved`` is informative only."""

    approved: bool
    findings: list[Finding]
    summary: str
    #: What mmr's reply limits cut, when they cut anything (also in ``summary``).
    note: str | None = None


PARSE_FAILURE_PREFIX = "Failed to parse channel output: "


ParseFailureReason = Literal["parse_error", "gate_failed"]


class ParseFailure(_Model):
    """A reply that did not parse: a typed outcome, never an empty review.

    ``reason`` is the channel's ``reason`` at settle: ``gate_failed`` when the reply parsed
    but failed its parser's gate, else ``parse_error``.
    """

    error: str
    reason: ParseFailureReason = "parse_error"

    @property
    def description(self) -> str:
        """MMR 4.0.1's wording, used as the channel's ``error`` field."""
        return PARSE_FAILURE_PREFIX + self.error



class FindingMember(_Model):
    """One channel's own finding that a reconciled finding merged (an mmr addition)."""

    channel: str
    severity: Severity
    location: str
    description: str
    suggestion: str
    #: Its own ``finding_key``: an ack on it covers the group.
    finding_key: str


class ReconciledFinding(_Model):
    """A group of findings merged across channels.

    ``id`` is either the representative's model-supplied id or a generated ``F-NNN``;
    MMR 4.0.1 writes a generated id as the *last* key, so serialisation goes through
    :meth:`to_json_dict`, which knows which one it is.
    """

    severity: Severity
    location: str
    description: str
    suggestion: str
    id: str | None = None
    category: str | None = None
    reported_confidence: ReportedConfidence | None = None
    replacement: str | None = None
    confidence: Confidence
    sources: list[str]
    agreement: Agreement
    finding_key: str
    description_shingle: list[str]
    generated_id: str | None = Field(default=None, exclude=True)
    acknowledged: bool | None = None
    ack_match: Literal["exact", "fuzzy"] | None = None
    ack_reason: str | None = None
    #: Each channel's finding merged here, in visiting order (calibrated grouping only:
    #: ``reference`` writes what MMR 4.0.1 writes).
    members: list[FindingMember] | None = None
    #: mmr addition, on a ``--pr`` review: the finding since the last review.
    state: Literal["new", "open", "fixed"] | None = None

    def to_json_dict(self) -> dict[str, Any]:
        data = self.model_dump(mode="json", exclude_none=True)
        if self.generated_id is not None and self.id is None:
            # MMR 4.0.1's key order: a generated id follows description_shingle.
            ordered: dict[str, Any] = {}
            for key, value in data.items():
                ordered[key] = value
                if key == "description_shingle":
                    ordered["id"] = self.generated_id
            return ordered
        return data

    @property
    def display_id(self) -> str:
        return self.id if self.id is not None else (self.generated_id or "")


class Telemetry(_Model):
    """Per-channel usage figures extracted by a channel's ``telemetry`` config.

    ``int | float`` keeps a whole count an int, so JSON shows ``1234`` and not ``1234.0``.
    """

    context_window: int | float | None = None
    input_tokens: int | float | None = None
    output_tokens: int | float | None = None
    cost_usd: int | float | None = None
    turns: int | float | None = None


class ChannelResult(_Model):
    """One entry of ``per_channel`` in the results document."""

    status: ChannelStatus
    elapsed: str
    findings: list[Finding]
    raw_output: str | None = None
    error: str | None = None
    recovery: str | None = None
    reason: str | None = None
    attempts: int | None = None
    telemetry: Telemetry | None = None
    #: mmr additions: findings MMR 4.0.1 drops, omitted when there are none.
    outside_diff_findings: list[Finding] | None = None
    unanchored_findings: list[Finding] | None = None
    #: mmr additions (review cache): the reply was reused from job ``cached_from``.
    cached: bool | None = None
    cached_from: str | None = None
    #: mmr addition: what the reply limits cut, e.g. ``[mmr: 7 findings over
    #: the limit of 500 per channel were dropped]``; omitted when nothing was cut.
    note: str | None = None


class ResultsMetadata(_Model):
    channels_dispatched: int
    channels_completed: int
    channels_partial: int
    total_elapsed: str
    channels_independent: int | None = None
    #: mmr additions, present only when non-zero.
    outside_diff_count: int | None = None
    unanchored_count: int | None = None
    ungated_count: int | None = None
    compensating_passes: int | None = None
    #: mmr additions: the sums of the channels' telemetry, present when one reported it.
    input_tokens: int | float | None = None
    output_tokens: int | float | None = None
    total_cost_usd: int | float | None = None


OutsideDiffGate = Literal["advisory", "block"]


class ChannelCoverage(_Model):
    """What one channel did not see of the diff: its own ``diff_exclude``
    files, all of it when it was skipped because of the diff (``skipped``: the reason), or
    the files of its shards that failed."""

    channel: str
    excluded_files: list[str] = Field(default_factory=list)
    skipped: str | None = None
    shards: int | None = None  #: how many shards its diff was reviewed in, when more than one
    unreviewed_files: list[str] | None = None  #: the files of its shards that failed
    summarised_files: list[str] | None = None  #: generated files it was told of, not sent


class Coverage(_Model):
    """What the review covered: the diff's files and lines, and what was left out of it."""

    files: int
    lines_added: int
    lines_removed: int
    diff_lines: int
    #: Credentials replaced by ``<redacted:KIND>`` markers in the reviewed diff.
    redacted_credentials: int = 0
    excluded_files: list[str] = Field(default_factory=list)
    channels: list[ChannelCoverage] = Field(default_factory=list)
    partial: bool = False
    #: Changed files the diff holds only as ``Binary files … differ`` (binary by content):
    #: no reviewer read them. Omitted when there are none.
    binary_files: list[str] | None = None
    summarised_files: list[str] | None = None  #: generated files named, not sent
    #: Changed text files whose diff is over the 10 MiB cap, shown to no reviewer (or None).
    unshown_text_files: list[str] | None = None


_FINDING_LISTS = frozenset({"reconciled_findings", "outside_diff_findings", "unanchored_findings",
                            "fixed_findings"})


class PullRequestInfo(_Model):
    """Which pull request a ``--pr`` review covered, and how much of it was reviewed."""

    number: int
    repository: str
    head: str
    review: Literal["incremental", "full"]
    #: The head of the last review, when there was one.
    since: str | None = None
    why: str


class GatedAck(_Model):
    """One ack file the ratification gate held back: what it would silence."""

    file: str
    finding_key: str | None = None
    location: str | None = None
    ack_reason: str | None = None


class Ratification(_Model):
    """What the ratification gate held back, and the command that ratifies it (mmr only)."""

    acks: list[GatedAck]
    config_change: bool
    command: str


class ReconciledResults(_Model):
    """The document `review --sync`, `results` and `reconcile` print."""

    job_id: str | None
    verdict: Verdict
    fix_threshold: Severity
    advisory_count: int
    approved: bool
    summary: str
    reconciled_findings: list[ReconciledFinding]
    per_channel: dict[str, ChannelResult]
    metadata: ResultsMetadata
    trust_mode: TrustMode | None = None
    proposed_acks: list[str] | None = None
    proposed_config_change: bool | None = None
    session_id: str | None = None
    round: int | None = None
    #: mmr additions: the findings not in the diff, how they were gated, coverage.
    outside_diff_findings: list[ReconciledFinding] | None = None
    unanchored_findings: list[ReconciledFinding] | None = None
    outside_diff_gate: OutsideDiffGate | None = None
    coverage: Coverage | None = None
    #: mmr addition: on the ratification-gate document only.
    ratification: Ratification | None = None
    #: mmr additions, on a ``--pr`` review: the pull request, and what its last review
    #: reported that is gone now.
    pull_request: PullRequestInfo | None = None
    fixed_findings: list[ReconciledFinding] | None = None

    def to_json_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for name in type(self).model_fields:
            value = getattr(self, name)
            if value is None and name != "job_id":
                continue
            if name == "job_id" and value is None:
                # Only the ratification-gate document has no job (mmr writes null there).
                data[name] = None
            elif name in _FINDING_LISTS:
                data[name] = [f.to_json_dict() for f in value]
            elif name == "per_channel":
                data[name] = {ch: r.to_json_dict() for ch, r in value.items()}
            elif isinstance(value, BaseModel):
                data[name] = value.model_dump(mode="json", exclude_none=True)
            else:
                data[name] = value
        return data
