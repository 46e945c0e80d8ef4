"""Harness for ``mmr critique``: fake channel CLIs on PATH, the real CLI entry point.

``run_mmr`` (``tests/cli_runner.py``) goes through ``mmr.cli.main.main`` in-process, so
argument parsing, the error boundary, exit codes and output writing are the real ones;
``stdin`` feeds ``-``. Channels are real executables that record their argv and stdin
(``tests/fakes``); the user config is written as the review suite writes it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli_runner import CliResult as Result
from tests.cli_runner import RunMmr
from tests.integration.review.conftest import BUILTIN_ENABLED, job_ids, write_user_config

__all__ = ["BUILTIN_ENABLED", "DESIGN", "Result", "RunMmr", "claude_envelope", "critique_reply",
           "item", "job_ids", "project", "write_user_config"]

DESIGN = ("# Job scheduler\n\nProblem: nightly reports run late.\n\n"
          "Proposal: a single cron host polls every table each minute and writes results "
          "into the primary database.\n")


def item(observation: str, kind: str = "concern", theme: str = "scale",
         recommendation: str | None = None) -> dict[str, Any]:
    entry: dict[str, Any] = {"kind": kind, "theme": theme, "observation": observation}
    if recommendation is not None:
        entry["recommendation"] = recommendation
    return entry


def critique_reply(*items: dict[str, Any], summary: str = "Reviewed the plan.") -> str:
    """A model reply: prose around the JSON object, as real models write it."""
    body = json.dumps({"items": list(items), "summary": summary})
    return f"Here is my critique.\n```json\n{body}\n```\n"


def claude_envelope(payload: dict[str, Any] | str) -> dict[str, Any]:
    """What ``claude -p --output-format json`` prints around the model's reply."""
    text = payload if isinstance(payload, str) else json.dumps(payload)
    return {"type": "result", "subtype": "success", "is_error": False, "result": text}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A plain directory (not a git repository) holding ``design.md``."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "design.md").write_text(DESIGN)
    return root
