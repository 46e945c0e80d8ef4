"""The values one review run passes around: its surroundings, its plan, and its outcome.

:class:`ReviewSetup` is everything decided before a job exists. Its :class:`JobPlan` is the
part that runs the job once it exists — gate, dispatch, compensation, results — which
``--sync`` executes in the foreground and the detached worker receives.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Protocol

from mmr.errors import MmrError
from mmr.formatters import render

if TYPE_CHECKING:  # annotations only: `mmr results`/`reconcile` import this module too
    from mmr.config.loaded import LoadedConfig
    from mmr.diff.proposed import ProposedChanges
    from mmr.diff.tree import TreeSource
    from mmr.dispatch.plan import ChannelEvent
    from mmr.models import Finding, ReconciledResults
    from mmr.prompt.plans import PlannedChannel, PreparedDiff
    from mmr.review.request import ReviewRequest
    from mmr.store.pulls import PullState
    from mmr.trust.modes import TrustContext

#: How often a non-terminal display says it still waits (``mmr results`` waits the same way).
HEARTBEAT_S = 30.0


class Progress(Protocol):
    """Live per-channel progress (:class:`mmr.review.progress.ProgressDisplay`)."""

    def __call__(self, event: ChannelEvent) -> None: ...

    def showing(self, channels: Sequence[str]) -> AbstractContextManager[None]: ...


@dataclass(frozen=True)
class ReviewIO:
    """The review's surroundings: where it runs, where notices go, what draws progress."""

    cwd: Path
    notice_sink: Callable[[str], None]
    stdin: BinaryIO | None = None
    progress: Progress | None = None
    #: stdout is a terminal: a verdict nobody chose a format for is printed as text.
    terminal: bool = False

    def notice(self, line: str | None) -> None:
        """One line for stderr; ``None`` (no notice) is ignored."""
        if line:
            self.notice_sink(line)

    def notice_all(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.notice(line)


@dataclass(frozen=True)
class ReviewOutcome:
    """What the command prints on stdout (complete, without the final newline) and returns."""

    document: str
    exit_code: int
    job_id: str | None = None


@dataclass(frozen=True)
class JobPlan:
    """What runs a created job: the detached worker's run plan.

    Only the config's values are used (channels, defaults, ``--timeout``); the worker
    never re-reads config files or the diff, since the working tree may have changed.
    """

    loaded: LoadedConfig
    planned: tuple[PlannedChannel, ...]
    base_prompt: str
    project_root: Path
    compensate_missing: bool = False
    #: The tree exported as the review workspace, and the ref its instruction files come from.
    workspace: TreeSource | None = None
    trusted_ref: str | None = None

    @property
    def channel_names(self) -> list[str]:
        return [p.name for p in self.planned]


@dataclass(frozen=True)
class ReviewSetup:
    """Everything decided before a job exists: the run plan the worker will receive."""

    request: ReviewRequest
    loaded: LoadedConfig
    trust: TrustContext
    proposed: ProposedChanges
    prepared: PreparedDiff
    planned: tuple[PlannedChannel, ...]
    base_prompt: str
    max_rounds: int
    secret_findings: tuple[Finding, ...] = field(default=())
    #: Files the run-wide ``diff_exclude`` removed (recorded for the coverage object).
    excluded_files: tuple[str, ...] = field(default=())
    #: The tree a ``workspace: snapshot`` channel reads; None: no such channel, or no tree.
    workspace: TreeSource | None = None
    #: A ``--pr`` review: the pull request, and the last review it starts from.
    pull: PullState | None = None

    @property
    def channel_names(self) -> list[str]:
        return [p.name for p in self.planned]

    def job_plan(self) -> JobPlan:
        return JobPlan(loaded=self.loaded, planned=self.planned, base_prompt=self.base_prompt,
                       project_root=self.trust.project_root,
                       compensate_missing=self.request.compensate_missing,
                       workspace=self.workspace, trusted_ref=self.trust.trusted_ref)


def render_document(results: ReconciledResults, fmt: str) -> str:
    """A verdict document in ``fmt``; a format without a renderer is a clear error."""

    try:
        return render(results, fmt)  # type: ignore[arg-type]
    except ValueError as exc:
        raise MmrError(f"--format {fmt} is not available: {exc}") from None
