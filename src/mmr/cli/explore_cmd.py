"""``mmr explore``: parse the flags, run the exploration, write the answer, exit.

Everything the command does lives in :mod:`mmr.explore.run`; this module turns the command
line into an :class:`~mmr.explore.run.ExploreRequest`, sends notices to stderr and the answer
to ``--out`` or stdout, and returns the exit code (0 answer, 1 usage, 2 failed, 3 uncited).
:mod:`mmr.explore.run` is imported when the command runs (see "Imports" in :mod:`mmr.cli.app`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer

from mmr.cli.output import write_report
from mmr.explore.inputs import Breadth
from mmr.log import stderr_line

Format = Literal["text", "json"]


def explore(
    *,
    root: Annotated[list[str] | None, typer.Option(
        "--root", help="Directory to search (repeatable).")] = None,
    prompt_file: Annotated[str | None, typer.Option(
        "--prompt-file", help="File holding the question.")] = None,
    question: Annotated[str | None, typer.Option(
        "--question", help="The question, inline.")] = None,
    out: Annotated[str | None, typer.Option(
        "--out", help="Write the answer (or the JSON document) to FILE.")] = None,
    breadth: Annotated[Breadth, typer.Option(
        "--breadth", help="medium (stop when answered) or very-thorough (full sweep).")
    ] = "medium",
    channels: Annotated[list[str] | None, typer.Option(
        "--channels", help="Explore channels to run (space- or comma-separated).")] = None,
    max_turns: Annotated[int | None, typer.Option(
        "--max-turns", help="Turn cap of each sub-session (sets vars.max_turns).")] = None,
    timeout: Annotated[float | None, typer.Option(
        "--timeout", help="Seconds each channel may run.")] = None,
    m3: Annotated[bool, typer.Option(
        "--m3", help="Use MiniMax-M3 (no effort is sent unless --effort is given).")] = False,
    effort: Annotated[str | None, typer.Option(
        "--effort", help="Thinking depth: low|medium|high|xhigh|max.")] = None,
    fmt: Annotated[Format, typer.Option(
        "--format", help="text (the answer) or json.")] = "text",
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="Print roots, channels, prompt and argv; run nothing.")] = False,
    trust_project_config: Annotated[bool, typer.Option(
        "--trust-project-config",
        help="Run the channels of the branch's own .mmr.yaml (after you have read it).")
    ] = False,
) -> int:
    """Ask explore channels where something lives in the code; get a cited answer."""
    from mmr.explore.run import ExploreRequest, run_explore, write_out

    request = ExploreRequest(
        roots=tuple(root or ()), prompt_file=prompt_file, question=question, out=out,
        breadth=breadth, channels=None if channels is None else tuple(channels),
        max_turns=max_turns, timeout=timeout, m3=m3, effort=effort, format=fmt,
        dry_run=dry_run, trust_project_config=trust_project_config,
    )
    cwd = Path.cwd()
    outcome = run_explore(request, cwd, stderr_line)
    if outcome.text is not None:
        if outcome.to_out and out is not None:
            write_out(out, outcome.text, cwd)
        else:
            write_report(outcome.text, newline=not outcome.text.endswith("\n"))
    return outcome.exit_code
