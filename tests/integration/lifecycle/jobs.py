"""Finished review jobs written straight into the job store, as a dispatcher leaves them."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from mmr.store.jobs import JobStore

DIFF = """diff --git a/src/app.py b/src/app.py
--- a/src/app.py
+++ b/src/app.py
@@ -1,2 +1,3 @@
 def f(n):
-    return n
+    for i in range(n + 1):
+        print(i)
"""
STARTED = "2026-01-01T00:00:00.000Z"
COMPLETED = "2026-01-01T00:00:12.300Z"


def finished_job(store: JobStore, outputs: Mapping[str, Mapping[str, Any] | str | None], *,
                 min_completed_channels: int = 2, fmt: str = "json",
                 running: tuple[str, ...] = (), kind: str = "review") -> str:
    """A job whose channels completed with ``outputs`` (``None``: the channel failed);
    channels in ``running`` are still running. Its id."""
    record = store.create_job([*outputs, *running], fix_threshold="P2", format=fmt,
                              min_completed_channels=min_completed_channels,
                              trust_mode="base-ref", kind=kind)  # type: ignore[arg-type]
    job_id = record.job_id
    store.write_diff(job_id, DIFF)
    for name, output in outputs.items():
        if output is None:
            store.update_channel(job_id, name, status="failed", started_at=STARTED,
                                 completed_at=COMPLETED)
            continue
        text = output if isinstance(output, str) else json.dumps(output)
        store.write_channel_output(job_id, name, text)
        store.update_channel(job_id, name, status="completed", started_at=STARTED,
                             completed_at=COMPLETED)
    for name in running:
        store.update_channel(job_id, name, status="running", started_at=STARTED)
    return job_id
