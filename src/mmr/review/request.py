"""The parsed flags of one ``mmr review`` run, and their checks.

:class:`ReviewRequest` is the value the CLI hands the pipeline: nothing in it knows of
typer. :func:`check_request` applies the parser-level checks whose messages scripts see
(``round must be >= 1`` …); the CLI prints them under the command's help, exit 1.
"""

from __future__ import annotations

import shlex
from typing import Any

from pydantic import BaseModel, ConfigDict

from mmr.config.schema import OutputFormat
from mmr.diff.inputs import DiffRequest
from mmr.errors import UsageError
from mmr.store.session_ids import SESSION_ID_FLAG_MESSAGE, is_valid_session_id
from mmr.trust.modes import TrustFlags
from mmr.vocabulary import Severity


class ReviewRequest(BaseModel):
    """Every ``mmr review`` flag, as given (``None`` = not given)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    # input
    diff: str | None = None
    pr: int | None = None
    staged: bool = False
    base: str | None = None
    head: str | None = None
    # control
    focus: str | None = None
    fix_threshold: Severity | None = None
    channels: tuple[str, ...] | None = None
    timeout: float | None = None
    template: str | None = None
    max_diff_lines: int | None = None
    full: bool = False
    # output and mode
    format: OutputFormat | None = None
    sync: bool = False
    dry_run: bool = False
    compensate_missing: bool = False
    quiet: bool = False
    no_cache: bool = False
    # rounds
    session: str | None = None
    round: int | None = None
    max_rounds: int | None = None
    # trust
    accept_new_acks: bool = False
    trust_project_acks: bool = False
    trust_project_config: bool = False
    config_base_ref: str | None = None

    def diff_request(self) -> DiffRequest:
        return DiffRequest(diff=self.diff, pr=self.pr, staged=self.staged, base=self.base,
                           head=self.head)

    def trust_flags(self) -> TrustFlags:
        return TrustFlags(config_base_ref=self.config_base_ref,
                          trust_project_config=self.trust_project_config,
                          trust_project_acks=self.trust_project_acks,
                          accept_new_acks=self.accept_new_acks)

    def config_overrides(self) -> dict[str, Any]:
        """The flags that are a config layer: ``defaults.fix_threshold/timeout/format``, and
        ``--no-cache`` as ``defaults.cache.max_age: 0``."""
        return {"fix_threshold": self.fix_threshold, "timeout": self.timeout,
                "format": self.format, "cache": {"max_age": 0} if self.no_cache else None}

    def command_line(self, **changes: Any) -> str:
        """``mmr review`` with this run's flags (and ``changes``), ready to paste."""
        request = self.model_copy(update=changes)
        argv = ["mmr", "review"]
        for name, field in type(self).model_fields.items():
            value = getattr(request, name)
            if value == field.default or value is None:
                continue
            flag = "--" + name.replace("_", "-")
            if value is True:
                argv.append(flag)
            elif isinstance(value, tuple):
                argv += [flag, ",".join(value)]
            else:
                argv += [flag, f"{value:g}" if isinstance(value, float) else str(value)]
        return shlex.join(argv)


def check_request(request: ReviewRequest) -> None:
    """The flag checks done before any work; :class:`UsageError` with MMR 4.0.1's text."""
    if request.session is not None and not is_valid_session_id(request.session):
        raise UsageError(SESSION_ID_FLAG_MESSAGE)
    if request.round is not None and request.round < 1:
        raise UsageError("round must be >= 1")
    if request.max_rounds is not None and request.max_rounds < 1:
        raise UsageError("max-rounds must be >= 1")
    if request.pr is not None and request.pr < 1:
        raise UsageError(f"--pr must be a positive pull request number (got {request.pr})")
    if request.full and request.pr is None:
        raise UsageError("--full needs --pr: it reviews the whole pull request again")
    if request.timeout is not None and not request.timeout > 0:
        raise UsageError(f"--timeout must be a number of seconds > 0 (got {request.timeout:g})")
    if request.max_diff_lines is not None and request.max_diff_lines < 1:
        raise UsageError(f"--max-diff-lines must be >= 1 (got {request.max_diff_lines})")
