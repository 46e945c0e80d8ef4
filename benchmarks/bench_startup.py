"""Benchmark mmr's cold start, side by side with another tree's src.

Each run is a real process, ``python -m mmr`` with ``PYTHONPATH`` set to a tree's ``src``,
in a fresh git repository with an empty ``MMR_HOME``. Cases:

- ``mmr --version``, ``mmr --help``, ``mmr review --help``;
- ``review`` and ``review --sync`` up to the review body: everything mmr does before the
  pipeline starts the review (interpreter, imports, the command line, the request), timed
  by replacing ``mmr.review.pipeline.run_review`` with an immediate exit as it loads.

The trees take turns run by run, so a change in the machine's load hits both. Targets:
``--help`` and ``review --help`` under 0.3 s; ``--version`` under 0.22 s, faster than
MMR 4.0.1's 0.22-0.27 s on the same machines.

    python benchmarks/bench_startup.py [--runs 9] [--compare OTHER/src] [--json] [--check]
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

THIS_SRC = Path(__file__).resolve().parents[1] / "src"
TARGETS = {"--version": 0.22, "--help": 0.3, "review --help": 0.3}
BODY_REACHED = "bench_startup: review body reached"

#: Runs mmr with the review body replaced by an exit, installed as the pipeline module loads
#: (both trees import it late, inside the command).
_TO_THE_BODY = f"""
import importlib.machinery, os, runpy, sys

class _StopAtTheBody:
    def find_spec(self, name, path, target=None):
        if name != "mmr.review.pipeline":
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        run_module = spec.loader.exec_module

        def exec_module(module):
            run_module(module)
            def run_review(*args, **kwargs):
                os.write(2, b"{BODY_REACHED}\\n")
                os._exit(0)
            module.run_review = run_review

        spec.loader.exec_module = exec_module
        return spec

sys.meta_path.insert(0, _StopAtTheBody())
sys.argv = ["mmr", *sys.argv[1:]]
runpy.run_module("mmr", run_name="__main__")
"""

DIFF = """\
diff --git a/app.py b/app.py
--- a/app.py
+++ b/app.py
@@ -1 +1,2 @@
 x = 1
+y = 2
"""


def cases(diff: Path) -> dict[str, tuple[list[str], bool]]:
    """Name -> (mmr arguments, whether the run stops at the review body)."""
    review = ["review", "--diff", str(diff), "--quiet", "--channels", "claude"]
    return {
        "--version": (["--version"], False),
        "--help": (["--help"], False),
        "review --help": (["review", "--help"], False),
        "review, to the body": (review, True),
        "review --sync, to the body": ([*review, "--sync"], True),
    }


def sandbox(root: Path) -> tuple[Path, dict[str, str]]:
    """A git repository with one commit, a diff file, and an environment with an empty home."""
    repo = root / "repo"
    repo.mkdir()
    env = {**os.environ, "HOME": str(root / "home"), "MMR_HOME": str(root / "home" / ".mmr"),
           "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid"}
    (repo / "app.py").write_text("x = 1\n", encoding="utf-8")
    for command in (["git", "init", "-q"], ["git", "add", "app.py"],
                    ["git", "commit", "-qm", "start"]):
        subprocess.run(command, cwd=repo, env=env, check=True)
    diff = root / "change.diff"
    diff.write_text(DIFF, encoding="utf-8")
    return diff, env


def command(args: list[str], to_the_body: bool) -> list[str]:
    if to_the_body:
        return [sys.executable, "-c", _TO_THE_BODY, *args]
    return [sys.executable, "-m", "mmr", *args]


def timed(argv: list[str], to_the_body: bool, src: Path, repo: Path,
          env: dict[str, str]) -> float:
    """Wall seconds of one run; fails unless it did what the case says."""
    run_env = {**env, "PYTHONPATH": str(src)}
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=repo, env=run_env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0 or (to_the_body and BODY_REACHED not in done.stderr):
        raise RuntimeError(f"{' '.join(argv[-6:])} with {src}: exit {done.returncode}\n"
                           f"{done.stderr}")
    return elapsed


def check_tree(src: Path, env: dict[str, str]) -> None:
    """Make sure ``PYTHONPATH`` really selects ``src`` (an installed mmr must not win)."""
    found = subprocess.run([sys.executable, "-c", "import mmr; print(mmr.__file__)"],
                           env={**env, "PYTHONPATH": str(src)}, capture_output=True,
                           text=True, check=True).stdout.strip()
    if not Path(found).resolve().is_relative_to(src.resolve()):
        raise SystemExit(f"PYTHONPATH={src} imports mmr from {found}")


def measure(trees: dict[str, Path], runs: int) -> dict[str, dict[str, dict[str, float]]]:
    """``{case: {tree: {median_s, min_s, max_s}}}``, one warm-up run per case and tree."""
    with tempfile.TemporaryDirectory(prefix="mmr-bench-startup-") as tmp:
        diff, env = sandbox(Path(tmp))
        repo = Path(tmp) / "repo"
        for src in trees.values():
            check_tree(src, env)
        times: dict[str, dict[str, list[float]]] = {}
        for name, (args, to_the_body) in cases(diff).items():
            argv = command(args, to_the_body)
            for src in trees.values():
                timed(argv, to_the_body, src, repo, env)  # .pyc files, file cache
            per_tree = times.setdefault(name, {tree: [] for tree in trees})
            for _ in range(runs):
                for tree, src in trees.items():
                    per_tree[tree].append(timed(argv, to_the_body, src, repo, env))
    return {name: {tree: {"median_s": statistics.median(values), "min_s": min(values),
                          "max_s": max(values)}
                   for tree, values in per_tree.items()}
            for name, per_tree in times.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="measured runs per case and tree")
    parser.add_argument("--compare", type=Path, metavar="SRC",
                        help="the src directory of the tree to compare with (e.g. main's)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 when this tree's median misses a target")
    args = parser.parse_args(argv)
    trees = {"this": THIS_SRC} | ({"compared": args.compare} if args.compare else {})
    results = measure(trees, args.runs)
    if args.json:
        print(json.dumps({"trees": {k: str(v) for k, v in trees.items()}, "runs": args.runs,
                          "load_average": os.getloadavg(), "results": results,
                          "targets_s": TARGETS}, indent=2))
    else:
        print(f"mmr cold start, median (min-max) of {args.runs} runs per tree; "
              f"load average {os.getloadavg()[0]:.2f}")
        for tree, src in trees.items():
            print(f"  {tree}: {src}")
        for name, per_tree in results.items():
            cells = "  ".join(f"{tree} {row['median_s']:.3f} s ({row['min_s']:.3f}-"
                              f"{row['max_s']:.3f})" for tree, row in per_tree.items())
            target = f"  target < {TARGETS[name]:.2f} s" if name in TARGETS else ""
            print(f"  {name:<27} {cells}{target}")
    missed = any(results[name]["this"]["median_s"] >= target
                 for name, target in TARGETS.items())
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
