"""The typer application (placeholder until the CLI skeleton lands)."""

from __future__ import annotations

import typer

app = typer.Typer(name="mmr", add_completion=False, no_args_is_help=False)


@app.callback()
def _root() -> None:
    """mmr: one diff, several independent AI reviewers, one gated verdict."""


def run(args: list[str]) -> int:
    try:
        app(args=args, prog_name="mmr", standalone_mode=False)
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0
