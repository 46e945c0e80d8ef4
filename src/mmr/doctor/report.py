"""How ``mmr doctor`` prints its rows: a JSON array, or the text summary.

Both show health *before* any ``--fix``. Text::

    Channels: 1 ready · 2 need attention · 7 off

      ✓ codex            ok (codex-cli 0.50.0)
      ✗ claude           not_installed
          → install claude, or stop dispatching it: mmr config disable claude

mmr additions: the CLI's version after an installed row's status, and the ``minimax``
opt-in suggestion as a closing line.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from mmr.doctor.checks import NEEDS_ATTENTION, OFF, READY, ChannelHealth, HealthStatus

ICONS: dict[HealthStatus, str] = {
    "ok": "✓", "auth_failed": "⚠", "timeout": "⚠", "not_installed": "✗",
    "missing_command": "✗", "disabled": "·", "abstract": "·", "retired": "·",
}
NAME_WIDTH = 16
FIX_HINT = "Run `mmr doctor --fix` to disable the not-installed channel(s) above."


def render_json(rows: Sequence[ChannelHealth]) -> str:
    return json.dumps([row.to_json() for row in rows], indent=2, ensure_ascii=False)


def summary_line(rows: Sequence[ChannelHealth]) -> str:
    """``Channels: <R> ready · <A> need attention · <O> off``."""

    def count(statuses: frozenset[HealthStatus]) -> int:
        return sum(1 for row in rows if row.status in statuses)

    return (f"Channels: {count(READY)} ready · {count(NEEDS_ATTENTION)} need attention · "
            f"{count(OFF)} off")


def row_lines(row: ChannelHealth) -> list[str]:
    """The row, then its remediation line when it has one (names are never truncated)."""
    line = f"  {ICONS[row.status]} {row.name.ljust(NAME_WIDTH)} {row.status}"
    if row.version is not None:
        line += f" ({row.version})"
    return [line] + ([f"      → {row.recovery}"] if row.recovery is not None else [])


def render_text(rows: Sequence[ChannelHealth], *, fix: bool) -> str:
    """The text report; the ``--fix`` hint only when not fixing and something is missing."""
    lines = [summary_line(rows), ""]
    for row in rows:
        lines += row_lines(row)
    if not fix and any(row.status == "not_installed" for row in rows):
        lines += ["", FIX_HINT]
    for row in rows:
        if row.suggestion is not None:
            lines += ["", f"The {row.name} CLI is installed but the channel is off — "
                          f"to review with it too, run `{row.suggestion}`."]
    return "\n".join(lines)
