"""``mmr doctor [--fix] [--format text|json]``: install and auth state of every channel.

The health rows come from :mod:`mmr.doctor.checks`, the fixes from :mod:`mmr.doctor.fix`, the
rendering from :mod:`mmr.doctor.report`, all imported when the command runs (see "Imports"
in :mod:`mmr.cli.app`). Exit 1 while no reviewer is ready or
anything needs attention that ``--fix`` did not settle, else 0.
"""

from __future__ import annotations

from typing import Annotated, Literal

import typer

from mmr.cli.output import write_report
from mmr.config.paths import find_project_root
from mmr.log import stderr_line

DoctorFormat = Literal["text", "json"]
NO_REVIEWER = ("mmr: error: no reviewer is ready; install and log in to a reviewer CLI "
               "(e.g. `npm install -g @openai/codex`, then `codex login`) or add a channel of "
               "your own (docs/recipes/linter.md), then run `mmr doctor` again")


def doctor(
    *,
    fix: Annotated[bool, typer.Option(
        "--fix", help="Disable the channels whose CLI is not installed, in the global or "
                      "project config (see `mmr config path`).")] = False,
    fmt: Annotated[DoctorFormat, typer.Option(
        "--format", help="text (a summary) or json (an array, one object per channel).")
    ] = "text",
    trust_project_config: Annotated[bool, typer.Option(
        "--trust-project-config", help="Run the check commands of the working-tree .mmr.yaml "
        "even when the checked-out branch changed it (see `mmr explain trust`).")] = False,
) -> int:
    """Check each channel's install and login state.

    One row per channel with at most one remediation line; exit 1 while no channel is
    ready or any channel needs attention that --fix did not settle.
    """
    import anyio

    from mmr.config_edit.scope import load_for_probes
    from mmr.doctor.checks import READY, doctor_exit_code, probe_health_async, probed_channels
    from mmr.doctor.fix import fix_not_installed
    from mmr.doctor.report import render_json, render_text
    from mmr.doctor.warnings import uncommitted_auth_warning

    root = find_project_root()
    loaded, from_work_tree = load_for_probes(
        root, trust_project_config=trust_project_config, on_warning=stderr_line)
    warning = (uncommitted_auth_warning(root, set(probed_channels(loaded)))
               if from_work_tree else None)
    if warning is not None:
        stderr_line(warning)
    rows = anyio.run(probe_health_async, loaded)
    write_report(render_json(rows) if fmt == "json" else render_text(rows, fix=fix))
    if not any(row.status in READY for row in rows):
        # A review would have nothing to run (fixed or not): say what to add.
        stderr_line(NO_REVIEWER)
    if not fix:
        return doctor_exit_code(rows)
    if fmt == "text":
        write_report("")
    outcomes = fix_not_installed([row.name for row in rows if row.status == "not_installed"],
                                 root)
    for outcome in outcomes:
        if not outcome.ok:
            stderr_line("mmr: error: " + outcome.line.lstrip(" ✗"))
        elif fmt == "text":
            write_report(outcome.line)
    return doctor_exit_code(rows, fixed={o.name for o in outcomes if o.ok},
                            fix_failed=any(not o.ok for o in outcomes))

