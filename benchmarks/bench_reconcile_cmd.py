"""Benchmark ``mmr reconcile``: fold 2,001 external findings into a finished job.

Reference (00-overview): 1.24 s on these machines; target under 0.3 s.

Two jobs, both against a diff touching every file: a review of 2 channels that reported
20 findings (the budget applies here: the 2,001 injected findings are the work), and the
job ``mmr results`` is measured on, 4 channels with 2,000 overlapping findings
(``bench_reconcile.make_channels``), reported for scale. Each run gets a fresh copy of
the job (reconcile adds a channel) and folds in the same 2,001-finding array from a file,
writing ``results.json`` and printing the JSON verdict. Measured two ways: in-process
through the console entry point (``mmr.cli.main.main``, output to /dev/null), and as a
subprocess of the installed ``mmr`` (interpreter start-up and imports included).

    python benchmarks/bench_reconcile_cmd.py [--runs 7] [--seed 7]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_reconcile import make_channels

BUDGET_S = 0.3
EXTERNAL = 2_001


def _diff(paths: set[str]) -> str:
    return "".join(f"diff --git a/{p} b/{p}\n--- a/{p}\n+++ b/{p}\n@@ -1 +1 @@\n-a\n+b\n"
                   for p in sorted(paths))


def build_job(home: Path, seed: int, findings: int, channel_count: int) -> tuple[str, Path]:
    """A finished job under ``home`` and the external findings file; job id, file."""
    from mmr.store.jobs import JobStore

    channels = make_channels(findings, channel_count, seed)
    external = next(iter(make_channels(EXTERNAL, 1, seed + 1).values()))
    store = JobStore(home / "jobs")
    job_id = store.create_job(list(channels), fix_threshold="P2", format="json",
                              min_completed_channels=2).job_id
    everything = [f for reported in channels.values() for f in reported] + external
    store.write_diff(job_id, _diff({f.location.split(":")[0] for f in everything}))
    for name, reported in channels.items():
        reply = {"approved": False, "findings": [f.to_json_dict() for f in reported],
                 "summary": "bench"}
        store.write_channel_output(job_id, name, json.dumps(reply))
        store.update_channel(job_id, name, status="completed",
                             started_at="2026-01-01T00:00:00.000Z",
                             completed_at="2026-01-01T00:00:41.250Z")
    source = home / f"external-{job_id}.json"
    source.write_text(json.dumps([f.to_json_dict() for f in external]))
    return job_id, source


def fresh_copy(home: Path, job_id: str, run: int) -> str:
    """A copy of the pristine job under a new id (``mmr-`` + 12 hex)."""
    copy_id = f"mmr-{run:012x}"
    shutil.rmtree(home / "jobs" / copy_id, ignore_errors=True)
    shutil.copytree(home / "jobs" / job_id, home / "jobs" / copy_id)
    record = home / "jobs" / copy_id / "job.json"
    record.write_text(record.read_text().replace(job_id, copy_id))
    return copy_id


def in_process(job_id: str, source: Path) -> int:
    from mmr.cli.main import main

    with Path(os.devnull).open("w") as sink, contextlib.redirect_stdout(sink):
        return main(["reconcile", job_id, "--channel", "agent", "--input", str(source)])


def as_subprocess(job_id: str, source: Path) -> int:
    mmr = shutil.which("mmr") or str(Path(sys.executable).with_name("mmr"))
    done = subprocess.run([mmr, "reconcile", job_id, "--channel", "agent", "--input",
                           str(source)], stdout=subprocess.DEVNULL, check=False)
    return done.returncode


def measure(home: Path, job_id: str, source: Path, *, runs: int,
            run: Callable[[str, Path], int], first_id: int) -> tuple[list[float], list[float]]:
    """Wall and CPU seconds (this process and its children) of ``runs`` runs."""
    walls, cpus = [], []
    for index in range(runs):
        copy_id = fresh_copy(home, job_id, first_id + index)
        cpu = _cpu_seconds()
        started = time.perf_counter()
        code = run(copy_id, source)
        walls.append(time.perf_counter() - started)
        cpus.append(_cpu_seconds() - cpu)
        if code not in (0, 2, 3):
            raise SystemExit(f"mmr reconcile exited {code}")
    return walls, cpus


def _cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


CASES = ((20, 2, True), (2_000, 4, False))  # job findings, channels, budget applies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="runs per mode (medians reported)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mmr-bench-") as tmp:
        home = Path(tmp)
        os.environ["MMR_HOME"] = str(home)  # also for the subprocesses
        os.environ["HOME"] = str(home)
        run_number = 0
        for findings, channel_count, budgeted in CASES:
            job_id, source = build_job(home, args.seed, findings, channel_count)
            run_number += 1
            in_process(fresh_copy(home, job_id, run_number * 100), source)  # warm imports
            for label, run in (("in-process", in_process), ("subprocess", as_subprocess)):
                run_number += 1
                walls, cpus = measure(home, job_id, source, runs=args.runs, run=run,
                                      first_id=run_number * 100)
                median = statistics.median(walls)
                verdict = ("ok" if median < BUDGET_S else "OVER BUDGET") if budgeted else "info"
                print(f"reconcile {EXTERNAL} external findings into a job of {findings} "
                      f"findings / {channel_count} channels, {label}: median {median:.3f} s "
                      f"(best {min(walls):.3f} s, CPU median {statistics.median(cpus):.3f} s) "
                      f"over {args.runs} runs; budget {BUDGET_S} s: {verdict}")


if __name__ == "__main__":
    main()
