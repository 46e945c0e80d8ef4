"""A throwaway mmr app for testing the CLI machinery: commands shaped like mmr's.

Each command prints the values it received as JSON, so a test can see what parsing made of
a command line. Run as a script (``python toy_app.py ARGS``) it goes through the same
boundary as the ``mmr`` console script.
"""

from __future__ import annotations

import enum
import json
import sys
from typing import Annotated, Literal

import typer

from mmr.cli.app import add_command, new_root_app
from mmr.cli.groups import command_group
from mmr.cli.output import write_report
from mmr.errors import JobNotFoundError, UsageError


class Threshold(enum.StrEnum):
    P0 = "P0"
    P1 = "P1"
    P2 = "P2"
    P3 = "P3"


def _echo(**values: object) -> None:
    sys.stdout.write(json.dumps(values, default=str) + "\n")


def _positive_round(value: int | None) -> int | None:
    if value is not None and value < 1:
        raise typer.BadParameter("round must be >= 1")
    return value


def review(
    *,
    diff: Annotated[str | None, typer.Option("--diff")] = None,
    pr: Annotated[int | None, typer.Option("--pr")] = None,
    channels: Annotated[list[str] | None, typer.Option("--channels")] = None,
    fmt: Annotated[Literal["json", "text", "markdown"], typer.Option("--format")] = "json",
    fix_threshold: Annotated[Threshold | None, typer.Option("--fix-threshold")] = None,
    sync: Annotated[bool, typer.Option("--sync/--no-sync")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run")] = False,
    round_number: Annotated[
        int | None, typer.Option("--round", callback=_positive_round)] = None,
    max_rounds: Annotated[int | None, typer.Option("--max-rounds")] = None,
    timeout: Annotated[float | None, typer.Option("--timeout")] = None,
) -> int:
    """Review a diff (toy)."""
    if max_rounds is not None and max_rounds < 1:
        raise UsageError("max-rounds must be >= 1")
    names = [n for value in channels or [] for n in value.split(",") if n]
    _echo(diff=diff, pr=pr, channels=names, format=fmt,
          fix_threshold=fix_threshold.value if fix_threshold else None, sync=sync,
          dry_run=dry_run, round=round_number, timeout=timeout)
    return 3 if sync else 0


def critique(
    input_path: Annotated[str | None, typer.Argument(metavar="INPUT")] = None,
    channels: Annotated[list[str] | None, typer.Option("--channels")] = None,
    lenses: Annotated[str | None, typer.Option("--lenses")] = None,
    synthesis: Annotated[bool, typer.Option("--synthesis/--no-synthesis")] = True,
) -> int:
    """Critique a design (toy)."""
    if input_path is None:
        raise UsageError("No input given")
    _echo(input=input_path, channels=channels or [], lenses=lenses, synthesis=synthesis)
    return 0


def status(job_id: Annotated[str, typer.Argument()]) -> int:
    """Show a job (toy)."""
    if job_id == "missing":
        raise JobNotFoundError(f"Job not found: {job_id}")
    _echo(job_id=job_id)
    return 0


def reconcile(
    job_id: Annotated[str, typer.Argument()],
    channel: Annotated[str, typer.Option("--channel")],
    input_source: Annotated[str, typer.Option("--input")],
) -> int:
    """Fold external findings in (toy)."""
    _echo(job_id=job_id, channel=channel, input=input_source)
    return 0


def boom(kind: Annotated[str, typer.Option("--kind")] = "value") -> int:
    """Fail in an unexpected way (toy)."""
    if kind == "interrupt":
        raise KeyboardInterrupt
    if kind == "eof":
        raise EOFError
    if kind == "exit":
        raise typer.Exit(4)
    raise ValueError("something internal broke")


def report(size: Annotated[int, typer.Option("--size")] = 0,
           code: Annotated[int, typer.Option("--code")] = 0) -> int:
    """Write a report of SIZE bytes to stdout (toy)."""
    line = "x" * 99 + "\n"
    text = (line * (size // 100 + 1))[:size]
    write_report(text, newline=False)
    return code


def log(message: Annotated[str, typer.Option("--message")] = "hello") -> int:
    """Log a warning, then write a report (toy)."""
    from mmr.log import get_logger

    get_logger("toy").warning("toy_event", detail=message)
    write_report("the report")
    return 0


def build_app() -> typer.Typer:
    root = new_root_app()
    commands = (("review", review), ("critique", critique), ("status", status),
                ("reconcile", reconcile), ("boom", boom), ("report", report), ("log", log))
    for name, command in commands:
        add_command(root, command, name)
    jobs = command_group("Manage jobs (toy).")
    jobs.command("prune")(lambda: 0)
    jobs.command("list")(status)
    add_command(root, jobs, "jobs")
    return root


if __name__ == "__main__":
    from mmr.cli.dispatch import run
    from mmr.cli.errors import guard

    args = sys.argv[1:]
    raise SystemExit(guard(lambda: run(args, build_app()), args))
