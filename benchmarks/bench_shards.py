"""mmr's own time for a sharded review against a one-prompt review of the same large diff.

A branch adds 200 files of 100 lines (20,000 lines). Three channels (fast local shell
scripts that read the prompt, sleep ``--sleep`` seconds and answer a clean review) review it
with ``mmr review --sync --no-cache``, the two ways taking turns in each repetition:

- ``one prompt``: no ``max_prompt_tokens``: each channel gets the whole diff at once;
- ``sharded``: ``max_prompt_tokens: 8000``: each channel's diff in shards that fit, every
  shard of a channel at once (``shard_concurrency`` above the shard count), so the slowest
  shard is one sleep;
- ``sharded, 4 at once``: the default ``shard_concurrency: 4``: shards run in waves.

mmr's own time = wall time - the reviewers' time (one sleep; for waves, the number of waves
times the sleep). Target: the sharded review's own time under 1 s beyond its slowest shard.

    python benchmarks/bench_shards.py [--runs 5] [--sleep 0.5] [--json]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_review import mmr_command

FILES, LINES, CHANNELS, BUDGET = 200, 100, 3, 8000
REVIEWER = """#!/bin/sh
cat >/dev/null
echo x >> "$0.calls"
sleep {sleep}
echo '{{"approved": true, "findings": [], "summary": "clean"}}'
"""


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=b", "-c", "user.email=b@example.invalid", *args],
                   cwd=repo, check=True, capture_output=True)


def build(root: Path, sleep: float) -> tuple[Path, dict[str, str]]:
    bin_dir, repo = root / "bin", root / "repo"
    bin_dir.mkdir()
    repo.mkdir()
    for index in range(CHANNELS):
        exe = bin_dir / f"rev{index}"
        exe.write_text(REVIEWER.format(sleep=sleep))
        exe.chmod(0o755)
    git(repo, "init", "-q", "-b", "main")
    (repo / "README.md").write_text("bench\n")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "base")
    git(repo, "checkout", "-qb", "feature")
    for index in range(FILES):
        path = repo / "src" / f"module_{index:03d}.py"
        path.parent.mkdir(exist_ok=True)
        path.write_text("".join(f"def handler_{index}_{n}(request, limit={n}):\n"
                                f"    return request.get('items', [])[:limit] or None\n"
                                for n in range(LINES // 2)))
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "large change")
    env = dict(os.environ)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    env["MMR_HOME"] = str(root / "mmr-home")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return repo, env


def configure(repo: Path, budget: int | None, concurrency: int) -> None:
    lines = ["defaults:", "  min_completed_channels: 1", "channels:"]
    for index in range(CHANNELS):
        extra = f", max_prompt_tokens: {budget}, shard_concurrency: {concurrency}" \
            if budget else ""
        lines.append(f"  rev{index}: {{command: rev{index}{extra}}}")
    (repo / ".mmr.yaml").write_text("\n".join(lines) + "\n")


def calls(root: Path) -> int:
    path = root / "bin" / "rev0.calls"
    count = len(path.read_text().splitlines()) if path.exists() else 0
    path.unlink(missing_ok=True)
    return count


def run(repo: Path, env: dict[str, str]) -> float:
    argv = [*mmr_command(), "review", "--base", "main", "--sync", "--quiet", "--no-cache",
            "--trust-project-config"]
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=repo, env=env, capture_output=True, check=False)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"mmr exited {done.returncode}: {done.stderr.decode()[-2000:]}")
    return wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sleep", type=float, default=0.5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    variants = {"one prompt": (None, 4), "sharded": (BUDGET, 1000),
                "sharded, 4 at once": (BUDGET, 4)}
    with tempfile.TemporaryDirectory(prefix="mmr-shards-") as tmp:
        root = Path(tmp)
        repo, env = build(root, args.sleep)
        walls: dict[str, list[float]] = {name: [] for name in variants}
        shards: dict[str, int] = {}
        for repetition in range(args.runs + 1):  # the first round warms the caches
            for name, (budget, concurrency) in variants.items():
                configure(repo, budget, concurrency)
                wall = run(repo, env)
                shards[name] = calls(root)
                if repetition:
                    walls[name].append(wall)
    rows = []
    for name, (_, concurrency) in variants.items():
        waves = math.ceil(shards[name] / concurrency) if name != "one prompt" else 1
        median = statistics.median(walls[name])
        rows.append({"variant": name, "shards_per_channel": shards[name], "waves": waves,
                     "wall_s": round(median, 3),
                     "own_s": round(median - waves * args.sleep, 3)})
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(f"{FILES} files, {FILES * LINES} lines, {CHANNELS} channels, budget {BUDGET} tokens, "
          f"reviewers sleep {args.sleep}s; median of {args.runs} runs")
    for row in rows:
        print(f"  {row['variant']:<20} shards/channel {row['shards_per_channel']:>3}  "
              f"waves {row['waves']:>3}  wall {row['wall_s']:.3f}s  mmr's own {row['own_s']:.3f}s")


if __name__ == "__main__":
    main()
