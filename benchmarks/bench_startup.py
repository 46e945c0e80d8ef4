"""Benchmark cold start: median wall time of ``mmr --version`` and ``mmr --help``.

Each run is a real process started from the installed console script (``python -m mmr``
when there is none), exactly as a user or a script starts mmr. Targets: ``--version``
under 0.08 s, ``--help`` under 0.25 s; the reference takes about 0.22–0.27 s for
``--version`` on the same machines (spec 00-overview performance budget).

    python benchmarks/bench_startup.py [--runs 20] [--json] [--check]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

TARGETS = {"--version": 0.08, "--help": 0.25}


def mmr_command() -> list[str]:
    """The console script beside this interpreter, else one on PATH, else ``python -m mmr``."""
    script = Path(sys.executable).with_name("mmr")
    if script.exists():
        return [str(script)]
    found = shutil.which("mmr")
    return [found] if found else [sys.executable, "-m", "mmr"]


def wall_times(command: list[str], runs: int) -> list[float]:
    """Seconds per run, after one unmeasured warm-up run (file cache, .pyc files)."""
    subprocess.run(command, stdout=subprocess.DEVNULL, check=True)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - start)
    return times


def measure(runs: int) -> dict[str, dict[str, float]]:
    base = mmr_command()
    results = {}
    for flag, target in TARGETS.items():
        times = wall_times([*base, flag], runs)
        results[flag] = {"median_s": statistics.median(times), "min_s": min(times),
                         "max_s": max(times), "target_s": target}
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="measured runs per command")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--check", action="store_true", help="exit 1 when a median misses")
    args = parser.parse_args(argv)
    results = measure(args.runs)
    if args.json:
        print(json.dumps({"command": mmr_command(), "runs": args.runs, "results": results},
                         indent=2))
    else:
        print(f"mmr cold start ({' '.join(mmr_command())}), median of {args.runs} runs")
        for flag, row in results.items():
            verdict = "ok" if row["median_s"] < row["target_s"] else "OVER TARGET"
            print(f"  mmr {flag:<10} median {row['median_s']:.3f}s  "
                  f"(min {row['min_s']:.3f}s, max {row['max_s']:.3f}s; "
                  f"target < {row['target_s']:.2f}s) {verdict}")
    missed = any(row["median_s"] >= row["target_s"] for row in results.values())
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
