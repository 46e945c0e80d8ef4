"""The worker's run plan survives JSON exactly; the failing finding of bad input is named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from mmr.config.loader import load_config
from mmr.config.paths import user_config_path
from mmr.prompt.plans import PreparedDiff, PromptParts, plan_channels
from mmr.review.reconcile_input import locate_invalid_finding
from mmr.review.run import JobPlan
from mmr.review.worker import main as worker_main
from mmr.review.worker_plan import WorkerPlan
from tests.builtin_channels import ENABLED_BUILTINS
from tests.integration.lifecycle.jobs import DIFF

CONFIG = {
    "version": 1,
    "defaults": {"compensator": {"channel": "rev1"}, "parallel": False, "timeout": 77},
    "channels": {
        "rev1": {"command": "rev1 --json", "env": {"REV1_TOKEN": "s3cret"},
                 "flags": ["--schema", "{{findings_schema}}"],
                 "output_parser": {"kind": "unwrap-jsonpath", "wrap": "$.result",
                                   "then": "default-last"},
                 "retry": {"attempts": 2, "on": ["failed", "parse_error"]}, "required": True},
        "huge": {"command": "huge", "max_diff_lines": 1},
        "api": {"kind": "http", "endpoint": "https://llm.invalid/v1/chat/completions",
                "model": "m1", "endpoint_convention": "openai-chat", "api_key_env": "API_KEY",
                "headers": {"X-Team": "review"}},
    },
    "channels_disabled": ENABLED_BUILTINS,
}


def _job_plan(tmp_path: Path) -> JobPlan:
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(CONFIG))
    loaded = load_config(tmp_path, project_source=None, cli_overrides={"timeout": 12.5})
    prepared = PreparedDiff.prepare(DIFF, len(DIFF.splitlines()))
    parts = PromptParts(review_criteria=("Check bounds",), focus="loops")
    planned = plan_channels(["rev1", "huge", "api"], loaded, prepared, parts)
    return JobPlan(loaded=loaded, planned=tuple(planned), base_prompt=parts.assemble(DIFF),
                   project_root=tmp_path, compensate_missing=True)


def test_the_run_plan_round_trips_through_json(tmp_path: Path) -> None:
    plan = _job_plan(tmp_path)
    assert plan.planned[1].skip is not None and plan.planned[1].plan is None  # diff_too_large
    data = WorkerPlan.for_job("mmr-0123456789ab", tmp_path / "jobs", plan).model_dump_json()
    back = WorkerPlan.model_validate_json(data)
    assert back.jobs_root == str((tmp_path / "jobs").absolute())
    restored = back.job_plan()
    assert restored.planned == plan.planned
    assert restored.loaded.config == plan.loaded.config
    assert restored.loaded.cli_timeout == 12.5
    assert restored.loaded.timeout_for("api") == plan.loaded.timeout_for("api") == 12.5
    assert (restored.base_prompt, restored.project_root, restored.compensate_missing) == (
        plan.base_prompt, plan.project_root, True)
    rev1 = restored.planned[0].plan
    assert rev1 is not None and rev1.channel.flags == ["--schema", "{{findings_schema}}"]
    assert json.loads(data)["config"]["channels"]["rev1"]["env"] == {"REV1_TOKEN": "s3cret"}


def test_worker_main_refuses_a_bad_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert worker_main(["mmr-0123456789ab"]) == 1
    assert "usage: python -P -m mmr.review.worker" in capsys.readouterr().err


F = {"severity": "P2", "location": "a.py:1", "description": "d"}


@pytest.mark.parametrize(
    ("text", "detail", "where"),
    [
        (json.dumps([F, {**F, "location": ""}]), "Finding missing location",
         "finding 2 of 2, index 1"),
        ("Review:\n```json\n" + json.dumps({"findings": [F, F, {**F, "severity": "P9"}]})
         + "\n```", "Finding missing or invalid severity (must be P0-P3)",
         "finding 3 of 3, index 2"),
        ("Notes [1]: " + json.dumps([{**F, "description": ""}]) + " done",
         "Finding missing description", "finding 1 of 1, index 0"),
        ("[" + json.dumps(F) + ", 7,]", "Finding must be an object", "finding 2 of 2, index 1"),
    ],
)
def test_the_failing_finding_is_located(text: str, detail: str, where: str) -> None:
    assert locate_invalid_finding(text, detail) == where


@pytest.mark.parametrize(
    ("text", "detail"),
    [
        (json.dumps([F]), "Finding missing location"),  # nothing fails with that message
        ("no json here", "No JSON object or array found in input"),
        (json.dumps([{**F, "location": ""}]), "Finding missing description"),  # another fails
    ],
)
def test_nothing_is_located_unless_the_message_is_reproduced(text: str, detail: str) -> None:
    assert locate_invalid_finding(text, detail) is None
