"""What the review cache saves: a re-run of the same review against a cold one.

Fake channels sleep ``--sleep`` seconds (a model's answer time). Each repetition runs, back
to back, ``mmr review --sync --no-cache`` (every channel runs) and ``mmr review --sync``
after an identical review (every reply reused), and ``mmr --version`` as the floor of any
command. Medians; a cached re-run should cost about what mmr's own start-up costs.

    python benchmarks/bench_cache.py [--runs 5] [--channels 4] [--sleep 2]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_review import build, mmr_command


def wall(argv: list[str], repo: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=repo, env=env, capture_output=True, check=False)
    took = time.perf_counter() - start
    if done.returncode not in (0, 2):
        raise SystemExit(f"{argv} exited {done.returncode}: {done.stderr.decode()[-500:]}")
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--channels", type=int, default=4)
    parser.add_argument("--sleep", type=float, default=2.0)
    args = parser.parse_args()
    review = [*mmr_command(), "review", "--base", "main", "--sync", "--quiet"]
    cold, cached, floor = [], [], []
    with tempfile.TemporaryDirectory(prefix="mmr-bench-cache-") as tmp:
        repo, env = build(Path(tmp), args.channels, args.sleep)
        wall(review, repo, env)  # warms the bytecode cache and fills the review cache
        for _ in range(args.runs):
            cold.append(wall([*review, "--no-cache"], repo, env))
            cached.append(wall(review, repo, env))
            floor.append(wall([*mmr_command(), "--version"], repo, env))
    cold_s, cached_s, floor_s = (statistics.median(x) for x in (cold, cached, floor))
    print(f"{args.channels} channels sleeping {args.sleep:g} s, {args.runs} runs (medians):")
    print(f"  review, every channel runs (--no-cache): {cold_s:.3f} s")
    print(f"  review, every reply cached:              {cached_s:.3f} s "
          f"(saved {cold_s - cached_s:.3f} s, {cold_s / cached_s:.1f}x)")
    print(f"  mmr --version (start-up floor):          {floor_s:.3f} s")


if __name__ == "__main__":
    main()
