"""The early start's lane, step by step: when each child of ``review --sync`` starts.

Builds the fan-out benchmark's repository and fakes (``bench_review.build``), runs one
``mmr review --sync --no-cache`` to write the recipe, then, ``--runs`` times, a fresh
interpreter that does what the console script does up to the early start — read the
command line (``mmr.cli.fast_path``, the cyclic collector off as in ``mmr.cli.main``), then
the lane (``mmr.review.early``) — with a
timestamp after each step: imports, trust and key, diff (git), redaction, each spawn.
Times are ms since the parent launched the interpreter (its start-up included); medians.
The children are killed right after (no review runs).

    python benchmarks/bench_early_lane.py [--channels 8] [--runs 9]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_review import build, mmr_command

DRIVER = r"""
import gc, os, sys, time
marks = {"interpreter": time.time()}
gc.disable()  # as mmr.cli.main does until the command runs
args = ["review", "--base", "main", "--sync", "--quiet", "--no-cache"]
from mmr.cli.fast_path import early_start, fast_command
call = fast_command(args)
marks["cli imports"] = time.time()
import mmr.review.early as early
import mmr.trust.modes, mmr.diff.inputs, mmr.prompt.channel_prompt, mmr.process.speculative
import mmr.cache.recipe_store
marks["lane imports"] = time.time()
def wrap(owner, name, label):
    real = getattr(owner, name)
    def timed(*a, **k):
        result = real(*a, **k)
        marks[label] = time.time()
        return result
    setattr(owner, name, timed)
wrap(mmr.trust.modes, "resolve_trust", "trust (git)")
wrap(early, "early_key", "key")
wrap(mmr.cache.recipe_store, "load_recipe", "recipe read")
wrap(mmr.diff.inputs, "resolve_diff", "diff (git)")
real_prepare = mmr.prompt.channel_prompt.PreparedDiff.prepare.__func__
def prepare(cls, *a):
    result = real_prepare(cls, *a)
    marks["redaction"] = time.time()
    return result
mmr.prompt.channel_prompt.PreparedDiff.prepare = classmethod(prepare)
spawns = []
real_spawn = mmr.process.speculative._spawn
def spawn(identity):
    child = real_spawn(identity)
    spawns.append(time.time())
    return child
mmr.process.speculative._spawn = spawn
os.environ["_"] = sys.argv[1]
early_start(args, call)
marks["lane done"] = time.time()
gc.enable()
mmr.process.speculative.kill_unclaimed()
print(__import__("json").dumps({"marks": marks, "spawns": spawns}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--channels", type=int, default=8)
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory(prefix="mmr-lane-") as tmp:
        repo, env = build(Path(tmp), args.channels, 0.2)
        mmr = mmr_command()
        env["_"] = mmr[0]  # the shell's ``_``: part of the environment, so of the key
        review = [*mmr, "review", "--base", "main", "--sync", "--quiet", "--no-cache"]
        subprocess.run(review, cwd=repo, env=env, check=True, capture_output=True)
        rows: dict[str, list[float]] = {}
        for _ in range(args.runs):
            launched = time.time()
            done = subprocess.run([sys.executable, "-c", DRIVER, mmr[0]], cwd=repo, env=env,
                                  check=True, capture_output=True, text=True)
            data = json.loads(done.stdout)
            if len(data["spawns"]) != args.channels:
                sys.exit(f"the lane started {len(data['spawns'])} children: {done.stderr}")
            for label, stamp in data["marks"].items():
                rows.setdefault(label, []).append(1000 * (stamp - launched))
            for index in (0, args.channels - 1):
                rows.setdefault(f"spawn {index + 1}", []).append(
                    1000 * (data["spawns"][index] - launched))
    load = os.getloadavg()[0]
    print(f"{args.channels} channels, medians of {args.runs} runs (min-max), load {load:.2f}")
    order = sorted(rows, key=lambda label: statistics.median(rows[label]))
    for label in order:
        values = rows[label]
        print(f"  {label:<14} {statistics.median(values):6.1f} ms "
              f"({min(values):.1f}-{max(values):.1f})")


if __name__ == "__main__":
    main()
