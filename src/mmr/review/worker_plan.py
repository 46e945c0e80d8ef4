"""The run plan the foreground hands the detached worker, as one JSON document.

The foreground writes it to the worker's stdin and closes the pipe; it never touches the
disk, because resolved channel ``env``/``headers`` may hold secrets. It carries the values
the worker needs and nothing it would have to re-read: the merged config (channels,
defaults, an explicit ``--timeout``), each channel's plan with its final prompt, the base
prompt for compensating passes, and where the job and the project live.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from mmr.config.loaded import LoadedConfig
from mmr.config.provenance import Provenance
from mmr.config.schema import ChannelConfig, MmrConfig
from mmr.diff.tree import TreeKind, TreeSource
from mmr.dispatch.plan import ChannelPlan, ShardPlan
from mmr.parsers.specs import ParserSpec
from mmr.prompt.plans import ChannelSkip, PlannedChannel
from mmr.review.run import JobPlan


class _Plain(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class _Dispatch(_Plain):
    """A :class:`ChannelPlan` of a resolved channel."""

    channel: ChannelConfig
    prompt: str
    timeout_s: float
    output_parser: ParserSpec
    shards: tuple[tuple[str, tuple[str, ...]], ...] = ()  #: each shard's prompt and files


class _Skip(_Plain):
    reason: str
    message: str


class _Planned(_Plain):
    """A :class:`PlannedChannel`: a plan to dispatch, or why the channel is skipped."""

    name: str
    channel: ChannelConfig
    dispatch: _Dispatch | None = None
    skip: _Skip | None = None
    excluded_files: tuple[str, ...] = ()
    summarised_files: tuple[str, ...] = ()

    @classmethod
    def of(cls, planned: PlannedChannel) -> _Planned:
        plan, skip = planned.plan, planned.skip
        return cls(
            name=planned.name,
            channel=planned.channel,
            dispatch=None if plan is None else _Dispatch(
                channel=plan.channel, prompt=plan.prompt, timeout_s=plan.timeout_s,
                output_parser=plan.output_parser,
                shards=tuple((shard.prompt, shard.files) for shard in plan.shards)),
            skip=None if skip is None else _Skip(reason=skip.reason, message=skip.message),
            excluded_files=planned.excluded_files, summarised_files=planned.summarised_files,
        )

    def planned(self) -> PlannedChannel:
        dispatch, skip = self.dispatch, self.skip
        plan = None if dispatch is None else ChannelPlan(
            name=self.name, channel=dispatch.channel, prompt=dispatch.prompt,
            timeout_s=dispatch.timeout_s, output_parser=dispatch.output_parser,
            shards=tuple(ShardPlan(*shard) for shard in dispatch.shards))
        return PlannedChannel(
            name=self.name, channel=self.channel, plan=plan,
            skip=None if skip is None else ChannelSkip(skip.reason, skip.message),
            excluded_files=self.excluded_files, summarised_files=self.summarised_files,
        )


class WorkerPlan(_Plain):
    """Everything the worker of job ``job_id`` runs, in a form that survives JSON."""

    version: Literal[1] = 1
    job_id: str
    jobs_root: str
    config: MmrConfig
    cli_timeout: float | None = None
    project_root: str
    compensate_missing: bool = False
    base_prompt: str
    channels: tuple[_Planned, ...]
    workspace_kind: TreeKind | None = None
    workspace_commit: str | None = None
    trusted_ref: str | None = None

    @classmethod
    def for_job(cls, job_id: str, jobs_root: Path, plan: JobPlan) -> WorkerPlan:
        return cls(job_id=job_id, jobs_root=str(jobs_root.absolute()), config=plan.loaded.config,
                   cli_timeout=plan.loaded.cli_timeout, project_root=str(plan.project_root),
                   compensate_missing=plan.compensate_missing, base_prompt=plan.base_prompt,
                   channels=tuple(_Planned.of(p) for p in plan.planned),
                   workspace_kind=plan.workspace.kind if plan.workspace else None,
                   workspace_commit=plan.workspace.commit if plan.workspace else None,
                   trusted_ref=plan.trusted_ref)

    def job_plan(self) -> JobPlan:
        """The plan as the in-process code uses it (config layers are not carried: unused)."""
        loaded = LoadedConfig(config=self.config, provenance=Provenance(), layers=(),
                              cli_timeout=self.cli_timeout)
        return JobPlan(loaded=loaded, planned=tuple(c.planned() for c in self.channels),
                       base_prompt=self.base_prompt, project_root=Path(self.project_root),
                       compensate_missing=self.compensate_missing,
                       workspace=None if self.workspace_kind is None else TreeSource(
                           self.workspace_kind, Path(self.project_root), self.workspace_commit),
                       trusted_ref=self.trusted_ref)
