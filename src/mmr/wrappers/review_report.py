"""``review-minimax-run``'s words: the review request, the dry run, and the ending.

:func:`exit_code_for` is the original script's exit table on a settled channel: 0 findings passed
the gate; 2 MiniMax failed (its exit status, an ``is_error`` envelope, a timeout, a dirtied
worktree); 3 the reply came back but its findings were missing or failed the gate.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
from pathlib import Path

from mmr.dispatch.clean_tree import DIRTIED_WORKTREE
from mmr.dispatch.plan import ChannelOutcome, ChannelPlan
from mmr.explore.scratch import (
    ScratchRun,
    context_window_warning,
    preview_argv,
    reply_text,
    telemetry_line,
)
from mmr.fs import atomic_write_text
from mmr.parsers.jsonpath import resolve_path
from mmr.parsers.specs import ParserSpec, UnwrapJsonpathSpec, coerce_parser_spec
from mmr.parsers.unwrap import decode_envelope
from mmr.prompt.assemble import assemble_prompt, diff_fence
from mmr.wrappers.review_inputs import Materialised, Worktree

PROG = "review-minimax-run"
FALLBACK = "fall back to a Claude subagent review"
Line = Callable[[str], None]


def _fenced(heading: str, text: str) -> str:
    fence = diff_fence(text)
    return f"## {heading}\n{fence}text\n{text.rstrip() or '(none)'}\n{fence}"


def review_request(tree: Worktree, inputs: Materialised, criteria: Sequence[str]) -> str:
    """What the review wrapper asks: branch and base, the commits, the stat, then the diff.

    Commit messages come from the branch under review, so they are fenced like the diff.
    """
    header = "\n\n".join([
        f"# Change under review\n\nBranch `{tree.branch}` compared with `{tree.base}` "
        f"(`{tree.base}...HEAD`, the changes since the branches diverged).",
        _fenced("Commits", inputs.commits),
        _fenced("Diff stat", inputs.stat),
    ])
    return assemble_prompt(inputs.diff, template_criteria=criteria, core=header)


def dry_run_text(tree: Worktree, inputs: Materialised, plan: ChannelPlan, *, out: Path,
                 profile: str | None, max_diff_lines: int,
                 fake: tuple[Path, Path | None] | None) -> str:
    """RM's dry run: config, the materialised inputs, the full prompt and the command line."""
    variables = plan.channel.vars or {}
    argv = preview_argv(plan.name, plan.channel, repo_root=tree.root)
    rows = [
        ("worktree", str(tree.root)), ("branch", tree.branch), ("base", tree.base),
        ("out", str(out)), ("profile", profile or "none"), ("channel", plan.name),
        ("model", str(variables.get("model"))),
        ("effort", "not sent" if variables.get("effort") is None else str(variables["effort"])),
        ("max diff lines", str(max_diff_lines)), ("max turns", str(variables.get("max_turns"))),
        ("timeout", f"{plan.timeout_s:g}s"),
        ("fake envelope", "none (live call)" if fake is None else str(fake[0])),
        ("scratch dir", f"{inputs.directory} (diff.patch, commits.txt, stat.txt; removed on "
                        "exit)"),
        ("diff lines", str(inputs.line_count)), ("stat", inputs.stat_summary),
    ]
    lines = [f"{PROG} (dry run): the sub-session is not started and no findings file is "
             "written", *(f"{key + ':':<16}{value}" for key, value in rows)]
    lines += ["", "--- prompt ---", plan.prompt, "", "--- command (prompt on stdin; run from "
              "a fresh neutral directory) ---", shlex.join(argv) + " < prompt"]
    return "\n".join(lines)


def envelope_failed(raw: str | None, spec: ParserSpec) -> bool:
    """True when the reply is no usable envelope: none, not JSON, or ``is_error: true``."""
    if raw is None:
        return True
    try:
        envelope = decode_envelope(raw)
    except Exception:
        return True
    spec = coerce_parser_spec(spec)
    if isinstance(spec, UnwrapJsonpathSpec) and spec.error_path is not None:
        try:
            return resolve_path(envelope, spec.error_path) is True
        except ValueError:
            return False
    return False


def exit_code_for(outcome: ChannelOutcome, raw: str | None, spec: ParserSpec) -> int:
    """The exit table for the channel's final outcome (after its retry)."""
    if outcome.status == "completed":
        return 0
    if outcome.status != "failed" or outcome.reason not in ("parse_error", "gate_failed"):
        return 2
    return 2 if envelope_failed(raw, spec) else 3


def _first_line(text: str | None) -> str:
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    return lines[0] if lines else "no detail"


def failure_lines(outcome: ChannelOutcome, code: int, timeout_s: float) -> list[str]:
    """Why the run did not produce a findings file, and what the caller should do."""
    tries = f"{outcome.attempts} attempt(s)"
    if outcome.reason == DIRTIED_WORKTREE:
        listing = (outcome.error or "").splitlines()[1:]
        return [f"{PROG}: the sub-session changed the worktree (nothing was reverted); "
                f"{FALLBACK}", *listing]
    if outcome.status == "timeout":
        return [f"{PROG}: MiniMax timed out after {timeout_s:g}s (a timeout is not retried); "
                f"{FALLBACK}"]
    if code == 3:
        return [f"{PROG}: the findings failed the gate after {tries}: "
                f"{_first_line(outcome.error)}; {FALLBACK}; do not trust partial output"]
    return [f"{PROG}: MiniMax failed after {tries}: {_first_line(outcome.error)}; {FALLBACK}"]


def finish(plan: ChannelPlan, run: ScratchRun, out: Path, notice: Line, stdout: Line) -> int:
    """Telemetry to stderr, then the findings file (exit 0) or why not (2, 3)."""
    outcome = run.outcomes[plan.name]
    raw = run.raw.get(plan.name)
    if outcome.telemetry is not None:
        notice(telemetry_line(f"{PROG}:", plan.name, outcome.telemetry, outcome.elapsed_s))
    warning = context_window_warning(f"{PROG}:", plan.name, outcome.telemetry)
    if warning is not None:
        notice(warning)
    code = exit_code_for(outcome, raw, plan.output_parser)
    text = reply_text(raw, plan.output_parser) if code == 0 else None
    if text is None:  # also a completed reply whose text cannot be recovered: no file
        code = code or 2
        for line in failure_lines(outcome, code, plan.timeout_s):
            notice(line)
        return code
    out.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    atomic_write_text(out, text if text.endswith("\n") else text + "\n")
    findings = len(outcome.parsed.findings) if outcome.parsed is not None else 0
    notice(f"{PROG}: {findings} finding(s); findings file written (adjudicate before acting)")
    stdout(str(out))
    return 0
