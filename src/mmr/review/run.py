"""The values one review run passes around: its surroundings, its plan, and its outcome.

:class:`ReviewSetup` is everything decided before a job exists — the run plan that
``--sync`` executes in the foreground and that the detached worker will receive.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Protocol

from mmr.config.loaded import LoadedConfig
from mmr.dispatch.plan import ChannelEvent
from mmr.errors import MmrError
from mmr.models import Finding, ReconciledResults
from mmr.review.plans import PlannedChannel, PreparedDiff
from mmr.review.ratification import ProposedChanges
from mmr.review.request import ReviewRequest
from mmr.review.trust import TrustContext


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

    @property
    def channel_names(self) -> list[str]:
        return [p.name for p in self.planned]


def render_document(results: ReconciledResults, fmt: str) -> str:
    """A verdict document in ``fmt``; a format without a renderer is a clear error."""
    from mmr.formatters import render

    try:
        return render(results, fmt)  # type: ignore[arg-type]
    except ValueError as exc:
        raise MmrError(f"--format {fmt} is not available: {exc}") from None
