"""``mmr review`` as one readable function, step by step in MMR 4.0.1's order.

The order decides which error wins when several apply, so :func:`run_review` reads top to
bottom in that order; each step is a small function below it or in a sibling module.
Nothing here knows of typer: the CLI builds a :class:`~mmr.review.request.ReviewRequest`,
calls :func:`run_review` and prints the :class:`ReviewOutcome` it gets back. Warnings go to
``io.notice`` (stderr) as they happen; errors are :class:`mmr.errors.MmrError`.
"""

from __future__ import annotations

from collections.abc import Sequence

from mmr.config.loaded import LoadedConfig, ProjectText
from mmr.config.loader import load_config
from mmr.config.schema import MmrConfig
from mmr.config.selection import select_channels
from mmr.diff.generated import generated_files
from mmr.diff.inputs import NothingUncommittedError, check_reviewable, resolve_diff
from mmr.diff.tree import TreeSource, tree_source
from mmr.dispatch.workspace import uses_workspace
from mmr.errors import ChannelSelectionError, ConfigError, DiffError, GitError
from mmr.prompt.plans import PreparedDiff, PromptParts, plan_channels, redaction_notice
from mmr.reconcile.documents import max_rounds_results
from mmr.reconcile.verdict import unreachable_floor_warning
from mmr.review.dry_run import dry_run_json, dry_run_report
from mmr.review.execute import run_sync_review, start_review_job
from mmr.review.gate_report import gate_outcome
from mmr.review.incremental import plan_pull_review
from mmr.review.preflight import run_preflight
from mmr.review.request import ReviewRequest, check_request
from mmr.review.run import ReviewIO, ReviewOutcome, ReviewSetup, render_document
from mmr.secrets.findings import secret_findings
from mmr.store.rounds import check_round_budget
from mmr.store.session_ids import check_session_id
from mmr.trust.branch import committed_branch_hint
from mmr.trust.modes import TrustContext, resolve_trust
from mmr.trust.notices import unread_project_files_notice
from mmr.trust.ratification import ratification_gate
from mmr.trust.trusted_files import read_file_at_ref
from mmr.vocabulary import EXIT_NEEDS_USER_DECISION

__all__ = ["ReviewIO", "ReviewOutcome", "ReviewRequest", "run_review"]

NO_CHANNELS = "No channels enabled. Configure channels or pass --channels."


def run_review(request: ReviewRequest, io: ReviewIO) -> ReviewOutcome:
    setup = prepare_review(request, io)
    if isinstance(setup, ReviewOutcome):
        return setup
    request, planned = setup.request, list(setup.planned)
    if not request.sync and not request.dry_run:
        return start_review_job(setup, io)
    gate = run_preflight(planned, parallel=setup.loaded.defaults.parallel)
    if request.dry_run:
        render = dry_run_json if request.format == "json" else dry_run_report
        return ReviewOutcome(render(gate, setup.trust.project_root),
                             0 if any(r.passed for r in gate) else 1)
    return run_sync_review(setup, gate, io)


def prepare_review(request: ReviewRequest, io: ReviewIO) -> ReviewSetup | ReviewOutcome:
    """Everything decided before a job exists, or the outcome that ends the run first."""
    check_request(request)
    trust = resolve_trust(io.cwd, request.diff_request(), request.trust_flags())
    io.notice_all(trust.warnings)
    loaded = load_review_config(trust, request, io)
    template = template_criteria(loaded.config, request.template)
    if request.session is not None:
        check_session_id(request.session)
    budget = check_round_budget(request.round, request.max_rounds,
                                loaded.defaults.loop_control.max_rounds_default)
    if budget.exceeded:
        document = max_rounds_results(request.session, budget.effective_round,
                                      budget.max_rounds, loaded.defaults.fix_threshold)
        return ReviewOutcome(render_document(document, loaded.defaults.format),
                             EXIT_NEEDS_USER_DECISION)
    try:
        diff = resolve_diff(request.diff_request(), io.cwd,
                            diff_exclude=loaded.defaults.diff_exclude, stdin=io.stdin)
    except NothingUncommittedError as exc:  # the branch's commits may be what to review
        hint = committed_branch_hint(trust.project_root)
        raise exc if hint is None else DiffError(hint) from None
    io.notice(diff.exclusion_notice)
    proposed = diff.proposed.union(trust.branch_proposed)
    block = ratification_gate(trust, proposed)
    if block is not None:
        return gate_outcome(block, trust, loaded, request)
    io.notice(unread_project_files_notice(trust, request.diff_request(), proposed))
    pull, diff, incremental = (None, diff, None) if diff.pr_number is None else plan_pull_review(
        diff.pr_number, diff, trust.project_root, full=request.full,
        diff_exclude=loaded.defaults.diff_exclude)
    check_reviewable(diff, request.max_diff_lines or loaded.defaults.max_diff_lines)
    prepared = PreparedDiff.prepare(diff.text, diff.line_count)
    names = select_channels(loaded.config, request.channels)
    if not names:
        raise ChannelSelectionError(NO_CHANNELS)
    io.notice(unreachable_floor_warning(loaded.defaults.min_completed_channels, names))
    workspace = workspace_tree(request, trust, loaded, names)
    generated = () if loaded.defaults.review_generated else generated_files(
        diff.text, read_file_at_ref(trust.project_root, trust.trusted_ref, ".gitattributes")
        if trust.trusted_ref else None)
    parts = PromptParts(review_criteria=tuple(loaded.config.review_criteria or ()),
                        template_criteria=template, focus=request.focus,
                        workspace=workspace is not None, generated=generated,
                        incremental=incremental)
    planned = plan_channels(names, loaded, prepared, parts)
    io.notice(redaction_notice(planned, prepared))
    committed = secret_findings(list(prepared.hits)) if loaded.defaults.secret_findings else []
    return ReviewSetup(
        request=request, loaded=loaded, trust=trust, proposed=proposed,
        prepared=prepared, planned=tuple(planned), base_prompt=parts.assemble(prepared.redacted),
        max_rounds=budget.max_rounds, secret_findings=tuple(committed),
        excluded_files=diff.excluded_files, workspace=workspace,
        pull=pull,
    )


def load_review_config(trust: TrustContext, request: ReviewRequest,
                       io: ReviewIO) -> LoadedConfig:
    """The config the trust policy allows: the project layer only from a trusted source."""
    project = trust.project_config
    source = None if project is None else ProjectText(project.text, project.origin)
    return load_config(trust.project_root, project_source=source,
                       cli_overrides=request.config_overrides(), on_warning=io.notice,
                       default_format="text" if io.terminal else None)


def workspace_tree(request: ReviewRequest, trust: TrustContext, loaded: LoadedConfig,
                   names: Sequence[str]) -> TreeSource | None:
    """The tree exported as the review workspace, when a selected channel runs in one.

    Resolved now (a commit id), so the async worker exports what was reviewed. A ``--pr``
    or ``--diff`` review outside a repository gets none, and its channels run blind.
    """
    if not any(uses_workspace(c) for c in map(loaded.channel, names) if c is not None):
        return None
    try:
        return tree_source(request.diff_request(), trust.project_root)
    except GitError:
        return None


def template_criteria(config: MmrConfig, name: str | None) -> tuple[str, ...]:
    """The criteria of ``--template <name>``; an unknown name is an error."""
    if name is None:
        return ()
    templates = config.templates or {}
    if name not in templates:
        known = ", ".join(templates) or "none are defined"
        raise ConfigError(f'Unknown template "{name}". Known templates: {known}')
    return tuple(templates[name].criteria or ())
