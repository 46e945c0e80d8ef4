"""Reconciliation stays near-linear (00-overview: "reconciliation that scales").

The budget (20,000 findings under 2 s) is measured by ``benchmarks/bench_reconcile.py``;
this test only guards against an all-pairs regression, which would take minutes, with a
bound loose enough for a busy CI machine.
"""

from __future__ import annotations

import random
import time

import pytest

from mmr.models import Finding
from mmr.reconcile.reconciler import reconcile

PROBLEMS = ["is never validated", "leaks on error", "is compared with ==", "is read after close",
            "is not escaped before SQL", "overflows for large input"]


def _channels(total: int, channels: int, seed: int) -> dict[str, list[Finding]]:
    rng = random.Random(seed)
    files = [f"src/mod_{i}.py" for i in range(total // 40)]
    issues = []
    for _ in range(total // 2):
        name = "".join(rng.choice("abcdefghij_") for _ in range(8))
        issues.append((rng.choice(files), rng.randint(1, 300),
                       f"The value in `{name}()` {rng.choice(PROBLEMS)}"))
    out: dict[str, list[Finding]] = {f"ch{i}": [] for i in range(channels)}
    for n in range(total):
        path, line, text = rng.choice(issues)
        out[f"ch{n % channels}"].append(Finding(
            severity=rng.choice(["P0", "P1", "P2"]),
            location=f"{path}:{line + rng.randint(-2, 2)}",
            description=text + rng.choice(["", " here", " and should be fixed"]),
            suggestion=rng.choice(["Fix it.", "Validate first.", ""]),
        ))
    return out


@pytest.mark.slow
def test_twenty_thousand_findings_reconcile_in_seconds_not_minutes() -> None:
    channels = _channels(20_000, 8, seed=11)
    start = time.perf_counter()
    result = reconcile(channels)
    elapsed = time.perf_counter() - start
    assert 0 < len(result) < 20_000
    assert any(len(r.sources) > 1 for r in result)
    assert elapsed < 10, f"{elapsed:.1f} s"
