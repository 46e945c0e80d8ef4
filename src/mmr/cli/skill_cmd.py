"""``mmr skill install``: install the mmr review skill for coding agents."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer

from mmr.cli.output import write_report
from mmr.skills import apply_plan, install_root, plan_install, report, select_platforms

SkillAction = Literal["install"]


def skill(
    *,
    action: Annotated[SkillAction, typer.Argument(
        metavar="ACTION", show_default=False, help="install")],
    platform: Annotated[list[str] | None, typer.Option(
        "--platform",
        help="cursor, codex, antigravity, opencode or claude (several allowed).")] = None,
    install_all: Annotated[bool, typer.Option(
        "--all", help="Every platform (overrides --platform).")] = False,
    directory: Annotated[str | None, typer.Option(
        "--dir", help="Project root to install into (default: the enclosing git "
                      "repository, else the current directory).")] = None,
    force: Annotated[bool, typer.Option(
        "--force", help="Overwrite skill files that differ from mmr's.")] = False,
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="Show what would be written; write nothing.")] = False,
) -> int:
    """Install a "review with mmr" skill into a project for each agent CLI."""
    platforms = select_platforms(platform, install_all)
    root = install_root(directory, Path.cwd())
    planned = plan_install(root, platforms, force=force)
    written = 0 if dry_run else apply_plan(root, planned)
    write_report(report(root, planned, dry_run=dry_run, written=written))
    blocked = any(entry.action == "blocked-exists" for entry in planned)
    return 1 if blocked and not dry_run else 0
