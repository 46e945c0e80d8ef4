"""Harness for ``mmr critique``: fake channel CLIs on PATH, the real CLI entry point.

``run_mmr`` goes through ``mmr.cli.main.main`` in-process, so argument parsing, the error
boundary, exit codes and output writing are the real ones; channels are real executables
that record their argv and stdin (``tests/fakes``).
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from mmr.config.paths import jobs_dir, user_config_path

#: Built-in presets enabled by default; tests dispatch only their own fakes.
BUILTIN_ENABLED = ["claude", "codex", "grok", "antigravity", "opencode", "doc-conformance"]
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


@dataclass
class Result:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


RunMmr = Callable[..., Result]


@pytest.fixture
def run_mmr(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> RunMmr:
    """Run ``mmr <args>`` in ``cwd``; ``stdin`` feeds ``-``."""
    from mmr.cli.main import main

    def run(*args: str, cwd: Path, stdin: str | bytes | None = None) -> Result:
        capsys.readouterr()
        with monkeypatch.context() as patch:
            patch.chdir(cwd)
            if stdin is not None:
                data = stdin.encode() if isinstance(stdin, str) else stdin
                patch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
            code = main(list(args))
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return run


def write_user_config(channels: Mapping[str, Mapping[str, Any]], *,
                      disabled: list[str] | None = None, **top: Any) -> Path:
    """``$MMR_HOME/config.yaml`` with these channels; the built-ins are disabled."""
    document: dict[str, Any] = {
        "version": 1, "channels": {k: dict(v) for k, v in channels.items()},
        "channels_disabled": BUILTIN_ENABLED if disabled is None else disabled,
    }
    document.update(top)
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return path


def job_ids() -> list[str]:
    root = jobs_dir()
    return sorted(p.name for p in root.iterdir()) if root.exists() else []


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A plain directory (not a git repository) holding ``design.md``."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "design.md").write_text(DESIGN)
    return root
