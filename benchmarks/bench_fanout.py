"""mmr's own share of a review: ``review --sync`` overhead minus a bare Popen floor.

For each width (1, 4, 8, 16 channels) every repetition runs, back to back, ``mmr review
--sync`` against fake channels that sleep ``--sleep`` seconds, and a bare launcher (a
Python process that Popens the same fakes with a prompt of the same size on stdin, each
in its own session, and waits for them). Overhead = wall time - sleep; **own share =
median mmr overhead - median floor overhead** (the fakes' own start-up is in both).
Then ``mmr results`` on a 2,000-finding job, ``mmr reconcile`` folding 2,001 findings
into a 20-finding job (the issue's case: ``bench_reconcile_cmd.py``'s budget case, the
one the reference's 1.24 s is for) and, for scale, into the 2,000-finding job — the
injected channel keeps its 500 most severe (the per-channel reply limit of issue 16), so
500 of the 2,001 are reconciled, where the reference folds all of them,
``mmr --help``, ``mmr review --help``, ``mmr --version``; peak RSS of each command (its
process tree's largest resident set). Run with ``PYTHONDONTWRITEBYTECODE`` unset (it is
dropped for the children here) so the ``.pyc`` caches are used as a user's would be.

    python benchmarks/bench_fanout.py [--runs 7] [--widths 1 4 8 16] [--json]
                                      [--compare OLD_SRC]

``--compare`` also runs, in the same repetitions, the tree whose ``src`` directory is
given (put first on ``PYTHONPATH``): "before" and "after" side by side. The "before"
runs set ``MMR_EARLY_START=0``, so an older tree that still has the early start measures
its cold start, as this tree always runs (the variable means nothing to it).
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

from bench_reconcile_cmd import build_job, fresh_copy
from bench_review import build, mmr_command

# The fakes record the prompt size so the floor sends the same number of bytes.
FAKE = """\
#!{python}
import os, sys, time
data = sys.stdin.buffer.read()
size_file = os.environ.get("BENCH_PROMPT_SIZE")
if size_file:
    with open(size_file, "w") as out:
        out.write(str(len(data)))
time.sleep({sleep})
sys.stdout.write('{{"approved": true, "findings": [], "summary": "clean"}}\\n')
"""

LAUNCHER = """\
import subprocess, sys
prompt = open(sys.argv[1], "rb").read()
children = [subprocess.Popen([name], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, start_new_session=True)
            for name in sys.argv[2:]]
for child in children:
    child.stdin.write(prompt)
    child.stdin.close()
for child in children:
    child.stdout.read()
    child.stderr.read()
    child.wait()
"""


def timed(argv: list[str], cwd: Path | None, env: dict[str, str]) -> tuple[float, int, int]:
    """Wall seconds, exit code and peak RSS (KiB, the process tree's largest) of one run."""
    start = time.perf_counter()
    child = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    return wall, child.returncode, usage.ru_maxrss


def fanout(width: int, sleep: float, runs: int,
           variants: dict[str, dict[str, str]]) -> list[dict[str, float | str]]:
    with tempfile.TemporaryDirectory(prefix="mmr-fanout-") as tmp:
        root = Path(tmp)
        repo, env = build(root, width, sleep)
        for index in range(width):  # the recording fake instead of bench_review's
            (root / "bin" / f"fake{index}").write_text(
                FAKE.format(python=sys.executable, sleep=sleep))
        size_file = root / "prompt-size"
        review = [*mmr_command(), "review", "--base", "main", "--sync", "--quiet", "--no-cache"]
        envs = {label: {**env, **extra} for label, extra in variants.items()}
        for variant_env in envs.values():  # warm: .pyc files, version cache
            _, code, _ = timed(review, repo, {**variant_env, "BENCH_PROMPT_SIZE": str(size_file)})
            if code != 0:
                sys.exit(f"mmr review exited {code}")
        prompt = root / "prompt"
        prompt.write_bytes(b"x" * int(size_file.read_text()))
        floor = [sys.executable, "-c", LAUNCHER, str(prompt),
                 *[f"fake{index}" for index in range(width)]]
        timed(floor, repo, env)  # warm
        times: dict[str, list[float]] = {label: [] for label in envs}
        rss = dict.fromkeys(envs, 0)
        floor_times = []
        for _ in range(runs):
            for label, variant_env in envs.items():
                wall, code, peak = timed(review, repo, variant_env)
                if code != 0:
                    sys.exit(f"mmr review exited {code}")
                times[label].append(wall - sleep)
                rss[label] = max(rss[label], peak)
            floor_times.append(timed(floor, repo, env)[0] - sleep)
        floor_median = statistics.median(floor_times)
        rows: list[dict[str, float | str]] = []
        for label, overheads in times.items():
            median = statistics.median(overheads)
            rows.append({"variant": label, "channels": width, "mmr_overhead_s": median,
                         "floor_overhead_s": floor_median, "own_share_s": median - floor_median,
                         "mmr_min_s": min(overheads), "mmr_max_s": max(overheads),
                         "floor_min_s": min(floor_times), "floor_max_s": max(floor_times),
                         "prompt_bytes": int(size_file.read_text()), "peak_rss_kib": rss[label]})
        return rows


def commands(runs: int, variants: dict[str, dict[str, str]]) -> list[dict[str, float | str]]:
    with tempfile.TemporaryDirectory(prefix="mmr-cmds-") as tmp:
        home = Path(tmp)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.update(MMR_HOME=str(home), HOME=str(home))
        os.environ.update(MMR_HOME=str(home), HOME=str(home))
        job_id, source = build_job(home, 7, 2_000, 4)
        small_id, small_source = build_job(home, 7, 20, 2)
        mmr = mmr_command()
        # (label, argv) or (label, (job to copy, input)) for a reconcile of a fresh copy.
        cases: list[tuple[str, list[str] | tuple[str, Path]]] = [
            ("results (2,000 findings)", [*mmr, "results", job_id]),
            ("reconcile (2,001 in, 500 kept, into 20)", (small_id, small_source)),
            ("reconcile (2,001 in, 500 kept, into 2,000)", (job_id, source)),
            ("--help", [*mmr, "--help"]),
            ("review --help", [*mmr, "review", "--help"]),
            ("--version", [*mmr, "--version"]),
        ]
        rows: list[dict[str, float | str]] = []
        for label, argv in cases:
            walls: dict[str, list[float]] = {name: [] for name in variants}
            rss = dict.fromkeys(variants, 0)
            for run in range(runs + 1):  # the first run warms the caches
                for name, extra in variants.items():
                    if isinstance(argv, tuple):
                        copy_id = fresh_copy(home, argv[0], 1000 + run)
                        command = [*mmr, "reconcile", copy_id, "--channel", "agent",
                                   "--input", str(argv[1])]
                    else:
                        command = argv
                    wall, code, peak = timed(command, None, {**env, **extra})
                    if code not in (0, 2, 3):
                        sys.exit(f"{label} exited {code}")
                    if run:
                        walls[name].append(wall)
                        rss[name] = max(rss[name], peak)
            rows += [{"variant": name, "command": label, "median_s": statistics.median(w),
                      "min_s": min(w), "max_s": max(w), "peak_rss_kib": rss[name]}
                     for name, w in walls.items()]
        return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--widths", type=int, nargs="+", default=[1, 4, 8, 16])
    parser.add_argument("--sleep", type=float, default=2.0)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--compare", metavar="OLD_SRC", help="also run this src tree")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    variants: dict[str, dict[str, str]] = {"after": {}}
    if args.compare:
        variants = {"before": {"PYTHONPATH": str(Path(args.compare).resolve()),
                               "MMR_EARLY_START": "0"}, **variants}
    load = os.getloadavg()
    fan = [row for width in args.widths for row in fanout(width, args.sleep, args.runs, variants)]
    rows = commands(args.runs, variants)
    if args.json:
        print(json.dumps({"load": load, "load_end": os.getloadavg(), "fanout": fan,
                          "commands": rows}, indent=2))
        return
    print(f"load average at start {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, "
          f"end {os.getloadavg()[0]:.2f}; medians of {args.runs} interleaved runs")
    for row in fan:
        print(f"  {row['variant']:>6} {row['channels']:>2} channels: mmr overhead "
              f"{row['mmr_overhead_s']:.3f}s ({row['mmr_min_s']:.3f}-{row['mmr_max_s']:.3f})  "
              f"floor {row['floor_overhead_s']:.3f}s  own share {row['own_share_s']:.3f}s  "
              f"peak RSS {float(row['peak_rss_kib']) / 1024:.0f} MiB")
    for command in rows:
        print(f"  {command['variant']:>6} {command['command']}: {command['median_s']:.3f}s "
              f"({command['min_s']:.3f}-{command['max_s']:.3f})  "
              f"peak RSS {float(command['peak_rss_kib']) / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
