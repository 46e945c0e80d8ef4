"""A job laid out exactly as the reference 4.0.1 writes it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mmr.store.jobs import JobStore

#: A job exactly as the reference 4.0.1 lays it out (field order, entries, status files).
REFERENCE_JOB_ID = "mmr-0123456789ab"
REFERENCE_JOB: dict[str, Any] = {
    "job_id": REFERENCE_JOB_ID,
    "status": "dispatched",
    "fix_threshold": "P1",
    "format": "text",
    "created_at": "2026-05-01T10:00:00.000Z",
    "channels": {
        "codex": {"status": "dispatched", "auth": "ok", "output_parser": "default"},
        "gemini": {"status": "dispatched", "auth": "ok"},
        "compensating-gemini": {
            "status": "dispatched", "auth": "ok",
            "output_parser": {"kind": "unwrap-jsonpath", "wrap": "$.result"},
        },
    },
    "min_completed_channels": 2,
    "session_id": "s1",
    "round": 2,
    "review_controls": {
        "max_rounds": 5, "accept_new_acks": False, "trust_project_acks": False,
        "trust_project_config": False, "config_base_ref": "HEAD",
    },
    "trust_mode": "base-ref",
    "some_future_field": {"kept": True},
}


def write_reference_job(store: JobStore) -> Path:
    """Lay out REFERENCE_JOB with codex completed and gemini failed, as the reference does."""
    job_dir = store.root / REFERENCE_JOB_ID
    (job_dir / "channels").mkdir(parents=True)
    (job_dir / "job.json").write_text(json.dumps(REFERENCE_JOB, indent=2))
    channels = job_dir / "channels"
    (channels / "codex.status.json").write_text(json.dumps(
        {"status": "completed", "started_at": "2026-05-01T10:00:00.000Z",
         "completed_at": "2026-05-01T10:00:41.250Z"}, indent=2))
    (channels / "codex.json").write_text(json.dumps('{"approved": true, "findings": []}'))
    (channels / "codex.pid").write_text("4242")
    (channels / "gemini.status.json").write_text(json.dumps(
        {"status": "failed", "started_at": "2026-05-01T10:00:00.000Z",
         "completed_at": "2026-05-01T10:00:02.000Z"}, indent=2))
    (channels / "gemini.log").write_text("boom\n")
    (channels / "compensating-gemini.status.json").write_text(json.dumps(
        {"status": "completed", "started_at": "2026-05-01T10:00:03.000Z",
         "completed_at": "2026-05-01T10:00:09.000Z"}))
    (channels / "compensating-gemini.pid").write_text("undefined")
    return job_dir
