"""``mmr critique``: parse the flags, run the critique, print the report, exit 0.

Advisory: the exit code is 1 only for a usage problem (no input, an unreadable file,
bad flags, a bad config or an explicitly named channel that cannot run) and 0 otherwise,
whatever the models say. Everything the command does lives in
:mod:`mmr.critique.pipeline`, imported when the command runs (see "Imports" in
:mod:`mmr.cli.app`).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Literal

import typer

from mmr.cli.output import use_color, write_report
from mmr.log import stderr_line

Format = Literal["text", "json"]
ContextMode = Literal["none", "repo"]


def critique(
    *,
    input_path: Annotated[str | None, typer.Argument(
        metavar="INPUT", show_default=False,
        help="The design to critique: a file, or - to read standard input.")] = None,
    text: Annotated[str | None, typer.Option(
        "--text", help="Critique this inline text instead of a file.")] = None,
    focus: Annotated[str | None, typer.Option(
        "--focus", help="Extra focus areas for the critics.")] = None,
    channels: Annotated[list[str] | None, typer.Option(
        "--channels", help="Channels to ask (space- or comma-separated); put INPUT first.")
    ] = None,
    timeout: Annotated[float | None, typer.Option(
        "--timeout", help="Seconds each channel may run (wins over channel timeouts).")] = None,
    fmt: Annotated[Format | None, typer.Option(
        "--format", help="Output format: text (default) or json.")] = None,
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="Print each channel's prompt; check and dispatch nothing.")] = False,
    synthesis: Annotated[bool, typer.Option(
        "--synthesis/--no-synthesis", help="Run the editorial synthesis pass.")] = True,
    context: Annotated[ContextMode | None, typer.Option(
        "--context", help="repo: ground the critique in this codebase (default none).")] = None,
    context_paths: Annotated[str | None, typer.Option(
        "--context-paths", help="Comma-separated files to ground against (implies repo).")
    ] = None,
    session: Annotated[str | None, typer.Option(
        "--session", help="Iterate: this round sees the previous round of session ID.")] = None,
    lenses: Annotated[str | None, typer.Option(
        "--lenses", help="Comma-separated personas, one per channel (e.g. skeptic,scale).")
    ] = None,
    config_base_ref: Annotated[str | None, typer.Option(
        "--config-base-ref", help="Read project config from this git ref.")] = None,
    trust_project_config: Annotated[bool, typer.Option(
        "--trust-project-config", help="Honour the working-tree .mmr.yaml.")] = False,
    quiet: Annotated[bool, typer.Option(
        "--quiet", help="No per-channel progress on stderr.")] = False,
) -> int:
    """Critique a design with several AI models (advisory; never gates)."""
    from mmr.critique.pipeline import CritiqueIO, CritiqueRequest, run_critique
    from mmr.review.progress import progress_for

    request = CritiqueRequest(
        input=input_path, text=text, focus=focus,
        channels=None if channels is None else tuple(channels), timeout=timeout, format=fmt,
        dry_run=dry_run, synthesis=synthesis, context=context, context_paths=context_paths,
        session=session, lenses=lenses, config_base_ref=config_base_ref,
        trust_project_config=trust_project_config,
    )
    io = CritiqueIO(cwd=Path.cwd(), notice_sink=stderr_line,
                    progress=progress_for(sys.stderr, quiet=quiet, color=use_color(sys.stderr)))
    outcome = run_critique(request, io)
    write_report(outcome.document)
    return outcome.exit_code
