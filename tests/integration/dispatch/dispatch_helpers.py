"""Helpers for the runner, auth and compensation tests: a real job store in tmp, plans, runs."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from mmr.config.channel_schema import SubprocessChannel
from mmr.dispatch.plan import ChannelEvent, ChannelOutcome, ChannelPlan, DispatchContext
from mmr.dispatch.runner import dispatch_all
from mmr.parsers.specs import ParserSpec, coerce_parser_spec
from mmr.store.jobs import JobStore

CLEAN_REPLY: dict[str, Any] = {"approved": True, "findings": [], "summary": "looks fine"}
FINDING_REPLY: dict[str, Any] = {
    "approved": False,
    "findings": [{"severity": "P1", "location": "src/a.py:3", "description": "off by one",
                  "suggestion": "use <="}],
    "summary": "one issue",
}


def channel(command: str, **fields: Any) -> SubprocessChannel:
    """A validated subprocess channel (``kind`` and defaults filled in)."""
    return SubprocessChannel.model_validate({"command": command, **fields})


def plan(name: str, chan: SubprocessChannel, *, prompt: str = "review this diff",
         timeout_s: float = 10, parser: object = None) -> ChannelPlan:
    spec: ParserSpec = chan.output_parser if parser is None else coerce_parser_spec(parser)
    return ChannelPlan(name=name, channel=chan, prompt=prompt, timeout_s=timeout_s,
                       output_parser=spec)


@dataclass
class Job:
    """A real job directory, and the events a dispatch reported."""

    store: JobStore
    job_id: str
    repo_root: Path
    events: list[ChannelEvent] = field(default_factory=list)

    @property
    def channels_dir(self) -> Path:
        return self.store.paths(self.job_id).channels_dir

    def status(self, name: str) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(
            (self.channels_dir / f"{name}.status.json").read_text(encoding="utf-8"))
        return data

    def entry(self, name: str) -> dict[str, Any]:
        """The merged job entry (job.json + status file) as loaded by the store."""
        return self.store.load(self.job_id).channels[name].to_json_dict()

    def output(self, name: str) -> str | None:
        return self.store.read_channel_output(self.job_id, name)

    def log(self, name: str) -> str | None:
        return self.store.read_log(self.job_id, name)

    def file(self, name: str, suffix: str) -> Path:
        return self.channels_dir / f"{name}{suffix}"

    def context(self, *, parallel: bool = True) -> DispatchContext:
        return DispatchContext(job_id=self.job_id, store=self.store, repo_root=self.repo_root,
                               parallel=parallel, on_event=self.events.append)

    def dispatch(self, plans: Sequence[ChannelPlan], *,
                 parallel: bool = True) -> dict[str, ChannelOutcome]:
        return anyio.run(dispatch_all, plans, self.context(parallel=parallel))


def new_job(tmp_path: Path, names: Sequence[str], *, repo_root: Path | None = None) -> Job:
    store = JobStore(tmp_path / "jobs")
    record = store.create_job(names, fix_threshold="P2", format="json", min_completed_channels=2)
    root = repo_root if repo_root is not None else tmp_path
    return Job(store, record.job_id, root)
