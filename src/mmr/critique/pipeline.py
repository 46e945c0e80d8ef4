"""``mmr critique`` as one readable function, its steps top to bottom in MMR 4.0.1's order.

Only a bad command line, an input that cannot be read, a bad config or an explicitly
named channel that cannot run end the run with exit 1; from the pre-flight on, the
critique always completes with exit 0 — advisory, never a gate — even when every channel
fails. Nothing here knows of typer: the CLI builds a :class:`CritiqueRequest` and prints
the :class:`CritiqueOutcome`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial

import anyio

from mmr.config.loaded import LoadedConfig
from mmr.config.loader import load_config
from mmr.config.paths import jobs_dir
from mmr.config.selection import select_channels
from mmr.critique.context import RepoContext, build_repo_context
from mmr.critique.execute import (
    CritiqueSetup,
    create_critique_job,
    gate_entry,
    run_critique_job,
)
from mmr.critique.input import Artifact, read_artifact
from mmr.critique.lenses import assign_lenses, parse_lenses
from mmr.critique.models import CritiqueReport
from mmr.critique.plans import plan_critique
from mmr.critique.prompt import PromptParts, dry_run_document
from mmr.critique.report import RoundInfo, empty_report, render_json
from mmr.critique.request import CritiqueRequest, check_request
from mmr.critique.session import CritiqueSessionStore, SessionRound, critique_sessions_dir
from mmr.critique.text import render_text
from mmr.diff.inputs import DiffRequest
from mmr.dispatch.auth import check_channels
from mmr.dispatch.plan import AuthResult, ChannelPlan
from mmr.review.run import ReviewIO
from mmr.secrets.credentials import redact_credentials
from mmr.store.jobs import JobStore
from mmr.trust.modes import CONFIG_WARNING, TrustFlags, resolve_trust

NOTHING_PASSED = "No channels passed auth — emitting an empty critique. Run `mmr doctor`."

__all__ = ["CritiqueIO", "CritiqueOutcome", "CritiqueRequest", "run_critique"]


#: The critique's surroundings (where it runs, where notices go, what draws progress) are
#: a review's.
CritiqueIO = ReviewIO


@dataclass(frozen=True)
class CritiqueOutcome:
    """What to print on stdout (without the final newline), and the exit code (always 0)."""

    document: str
    exit_code: int = 0
    job_id: str | None = None


def run_critique(request: CritiqueRequest, io: CritiqueIO) -> CritiqueOutcome:
    """Run one critique and return what to print."""
    check_request(request)
    artifact = read_artifact(request.input, text=request.text, stdin=io.stdin)
    trust = resolve_trust(io.cwd, DiffRequest(), TrustFlags(
        config_base_ref=request.config_base_ref,
        trust_project_config=request.trust_project_config))
    for warning in trust.warnings:
        io.notice(CONFIG_WARNING if warning.startswith(CONFIG_WARNING) else warning)
    loaded = load_config(trust.project_root, project_source=trust.project_config,
                         cli_overrides=request.config_overrides(), on_warning=io.notice)
    names = select_channels(loaded.config, request.channels)
    context = (build_repo_context(io.cwd, artifact.text, request.explicit_paths)
               if request.wants_context else None)
    previous, round_info = _session(request.session, io)
    lenses = parse_lenses(request.lenses)
    plans, base_prompt = _plans(names, loaded, artifact=artifact, context=context,
                                request=request, previous=previous, lenses=lenses, io=io)
    if request.dry_run:
        prompts = [(name, plan.prompt) for name, plan in plans.items()]
        return CritiqueOutcome(dry_run_document(artifact.source, prompts, _context_lines(context)))
    gate = _preflight(plans, loaded)
    if not any(result.status == "ok" for result in gate.values()):
        io.notice(NOTHING_PASSED)
        per_channel = {name: gate_entry(result) for name, result in gate.items()}
        return _outcome(empty_report(artifact.source, per_channel, context), request)
    setup = CritiqueSetup(request=request, loaded=loaded, trust_mode=trust.mode,
                          project_root=trust.project_root, artifact=artifact, plans=plans,
                          base_prompt=base_prompt, context=context, lenses=tuple(lenses),
                          session=round_info)
    store = JobStore(jobs_dir())
    job_id = create_critique_job(setup, store, gate)
    report = run_critique_job(setup, store, job_id, gate, progress=io.progress,
                              notice=io.notice)
    return _outcome(report, request, job_id)


def _session(session_id: str | None,
             io: CritiqueIO) -> tuple[SessionRound | None, RoundInfo | None]:
    """The previous round (for the prompt) and this run's round number."""
    if session_id is None:
        return None, None
    rounds = CritiqueSessionStore(critique_sessions_dir(), warn=io.notice).rounds(session_id)
    return (rounds[-1] if rounds else None), RoundInfo(session_id, len(rounds) + 1)


def _plans(names: list[str], loaded: LoadedConfig, *, artifact: Artifact,
           context: RepoContext | None, request: CritiqueRequest, previous: SessionRound | None,
           lenses: list[str], io: CritiqueIO) -> tuple[dict[str, ChannelPlan], str]:
    """One plan per channel (its lens, its copy of the text), and the lens-free base prompt."""
    verbatim = PromptParts(artifact.text, request.focus, previous,
                           None if context is None else context.blob)
    redacted_artifact, hits = redact_credentials(artifact.text)
    redacted_context, context_hits = (None, 0) if context is None else \
        redact_credentials(context.blob)
    redacted = PromptParts(redacted_artifact, request.focus, previous, redacted_context)
    channels = {name: loaded.channels[name] for name in names}  # selection checked the names
    if hits + context_hits and any(c.on_credentials != "allow" for c in channels.values()):
        io.notice(f"[mmr] warning: redacted {hits + context_hits} credential-shaped string(s) "
                  "from the artifact and repository context before sending them "
                  "(on_credentials: redact)")
    assigned = assign_lenses(lenses, names)
    plans = {
        name: plan_critique(name, channel, loaded,
                            (verbatim if channel.on_credentials == "allow" else redacted)
                            .assemble(assigned.get(name)))
        for name, channel in channels.items()
    }
    return plans, redacted.assemble()


def _preflight(plans: Mapping[str, ChannelPlan], loaded: LoadedConfig) -> dict[str, AuthResult]:
    """Install + auth check of every channel (concurrently unless ``defaults.parallel`` is off)."""
    if not plans:
        return {}
    pairs = [(name, loaded.channel(name)) for name in plans]
    return anyio.run(partial(check_channels, pairs, parallel=loaded.defaults.parallel))


def _context_lines(context: RepoContext | None) -> list[str]:
    """Dry-run lines naming the files the context includes and leaves out."""
    if context is None:
        return []
    lines = ["Context used: " + (", ".join(context.used) or "(none)")]
    if context.skipped:
        lines.append("Context left out: "
                     + ", ".join(f"{s.path} ({s.reason})" for s in context.skipped))
    return lines


def _outcome(report: CritiqueReport, request: CritiqueRequest,
             job_id: str | None = None) -> CritiqueOutcome:
    render = render_json if request.output_format == "json" else render_text
    return CritiqueOutcome(render(report), 0, job_id)
