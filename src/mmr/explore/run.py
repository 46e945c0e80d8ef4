"""``mmr explore``: ask explore-role channels a question about the code.

One readable function, :func:`run_explore`, in the order that decides which error wins:
flags, roots, question, config and channel selection, prompt and plans, then either the
dry-run listing or the install checks and a synchronous dispatch in a scratch job (nothing
is added to ``~/.mmr/jobs``; no compensation, reconciliation or verdict). The answer used
is that of the first selected channel (in selection order) that passed its gate.

Exit codes: 0 an answer (``NOT FOUND`` included); 1 usage/config error, raised as
:class:`~mmr.errors.MmrError`; 2 every channel failed after its retry; 3 a channel ran but
its answer was empty or uncited. Rendering lives in :mod:`mmr.explore.report`.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import anyio

from mmr.config.loaded import LoadedConfig
from mmr.config.paths import find_project_root
from mmr.config.selection import select_channels
from mmr.config.wrapper import resolve_prompt_wrapper
from mmr.config_edit.scope import load_for_probes
from mmr.dispatch.auth import auth_status_to_channel_status, check_channels
from mmr.dispatch.plan import AuthResult, ChannelPlan
from mmr.errors import ChannelSelectionError, MmrError
from mmr.explore.inputs import (
    Breadth,
    check_effort,
    check_positive,
    explore_prompt,
    read_question,
    resolve_roots,
)
from mmr.explore.report import ExploreReport, dry_run_text, render_json, stderr_lines, summarise
from mmr.explore.scratch import run_in_scratch, with_vars
from mmr.fs import atomic_write_text
from mmr.models import ChannelStatus
from mmr.prompt.assemble import apply_wrapper

Notice = Callable[[str], None]

#: The model ``--m3`` selects for exploration (the ``minimax-m3`` review channel pins
#: ``MiniMax-M3[1m]``, the 1M-token window, in its preset instead).
M3_EXPLORE_MODEL = "MiniMax-M3"


@dataclass(frozen=True)
class ExploreRequest:
    """The command line of ``mmr explore`` (and of ``explore-minimax-run``)."""

    roots: tuple[str, ...]
    prompt_file: str | None = None
    question: str | None = None
    out: str | None = None
    breadth: Breadth = "medium"
    channels: tuple[str, ...] | None = None
    max_turns: int | None = None
    timeout: float | None = None
    m3: bool = False
    effort: str | None = None
    format: Literal["text", "json"] = "text"
    dry_run: bool = False
    trust_project_config: bool = False


@dataclass(frozen=True)
class ExploreOutcome:
    """What to print — to ``--out`` when ``to_out``, else stdout — and the exit code."""

    exit_code: int
    text: str | None
    to_out: bool = False
    report: ExploreReport | None = None


def vars_overrides(request: ExploreRequest) -> dict[str, object]:
    """The ``vars`` this run sets: ``--m3`` sends no effort unless ``--effort`` is given."""
    overrides: dict[str, object] = {}
    if request.m3:
        overrides["model"] = M3_EXPLORE_MODEL
        overrides["effort"] = None
    if request.effort is not None:
        overrides["effort"] = request.effort
    if request.max_turns is not None:
        overrides["max_turns"] = request.max_turns
    return overrides


def check_flags(request: ExploreRequest) -> None:
    """The flag checks that need no file system (all exit 1)."""
    check_effort(request.effort)
    check_positive(request.max_turns, "--max-turns")
    check_positive(request.timeout, "--timeout")


def run_explore(request: ExploreRequest, cwd: Path, notice: Notice) -> ExploreOutcome:
    """Run one exploration; return what to print and the exit code."""
    check_flags(request)
    roots = resolve_roots(request.roots, cwd)
    question = read_question(request.prompt_file, request.question, cwd)
    prompt = explore_prompt(roots, request.breadth, question)
    project_root = find_project_root(cwd)
    # As `doctor` reads it: the merge base's .mmr.yaml when the checked-out branch changed
    # it (a branch must not choose the commands run on the reader's machine).
    loaded, _ = load_for_probes(project_root, trust_project_config=request.trust_project_config,
                                on_warning=notice)
    names = select_channels(loaded.config, request.channels, role="explore")
    if not names:
        raise ChannelSelectionError("No explore channels selected; pass --channels NAME")
    plans = build_plans(names, loaded, prompt, vars_overrides(request), request.timeout)
    if request.dry_run:
        return ExploreOutcome(0, dry_run_text(roots, plans, project_root))
    not_run = install_checks(plans)
    ready = [plan for plan in plans if plan.name not in not_run]
    with tempfile.TemporaryDirectory(prefix="mmr-explore-") as scratch:
        run = run_in_scratch(ready, scratch=Path(scratch), repo_root=project_root, roots=roots)
    report = summarise(names, plans, run, not_run, roots)
    return outcome_for(report, request, notice)


def build_plans(names: Sequence[str], loaded: LoadedConfig, prompt: str,
                overrides: Mapping[str, object], timeout: float | None) -> list[ChannelPlan]:
    """One plan per channel: its wrapper around the prompt, this run's vars and timeout."""
    plans: list[ChannelPlan] = []
    for name in names:
        channel = loaded.channels[name]  # selection has already rejected unknown names
        wrapper = resolve_prompt_wrapper(channel.prompt_wrapper, name)
        plans.append(ChannelPlan(
            name=name, channel=with_vars(channel, overrides),
            prompt=apply_wrapper(wrapper, prompt),
            timeout_s=timeout if timeout is not None else loaded.timeout_for(name),
            output_parser=channel.output_parser,
        ))
    return plans


def install_checks(plans: Sequence[ChannelPlan]) -> dict[str, tuple[ChannelStatus, AuthResult]]:
    """Channels that cannot run (not installed, auth failed); MmrError when none can."""
    results = anyio.run(check_channels, [(plan.name, plan.channel) for plan in plans])
    not_run = {name: (auth_status_to_channel_status(result), result)
               for name, result in results.items() if result.status != "ok"}
    if len(not_run) == len(plans):
        reasons = "; ".join(f"{name}: {result.recovery or result.detail or result.status}"
                            for name, (_, result) in not_run.items())
        raise MmrError(f"no explore channel can run ({reasons})")
    return not_run


def outcome_for(report: ExploreReport, request: ExploreRequest, notice: Notice) -> ExploreOutcome:
    """The report in the requested format; stderr gets telemetry and failure reasons."""
    if request.format == "json":
        return ExploreOutcome(report.exit_code, render_json(report), request.out is not None,
                              report)
    for line in stderr_lines(report):
        notice(line)
    text = None if report.answer is None else report.answer + "\n"
    return ExploreOutcome(report.exit_code, text, request.out is not None, report)


def write_out(path: str, text: str, cwd: Path) -> Path:
    """Write ``text`` to ``--out`` atomically (parent directories created); its path."""
    target = cwd / Path(path).expanduser()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(target, text)
    except OSError as exc:
        raise MmrError(f"cannot write --out {path}: {exc.strerror or exc}") from None
    return target
