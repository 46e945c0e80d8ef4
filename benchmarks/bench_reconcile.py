"""Benchmark reconciliation in-process (spec 00-overview performance budget).

Targets: 2,000 findings from 4 channels well under 0.15 s; 20,000 findings under 2 s.

The data imitates real reviews: channels report overlapping issues on the same files, at
drifting lines, with reworded descriptions (modal verbs, extra words, case), differing
severities and suggestions, plus findings only one channel saw.

    python benchmarks/bench_reconcile.py [--runs 5] [--seed 7]
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import time
from collections.abc import Callable
from functools import partial

from mmr.models import Finding
from mmr.reconcile.collation import collate_key
from mmr.reconcile.reconciler import reconcile
from mmr.vocabulary import SEVERITIES

_SUBJECTS = ("token", "session", "request body", "user id", "cache entry", "retry count",
             "config value", "file handle", "query string", "response header")
_PROBLEMS = ("is never validated before use", "can be null when the list is empty",
             "leaks when the request fails", "is compared with == and allows a timing attack",
             "is read after it was closed", "is not escaped before it reaches SQL",
             "overflows for inputs above 2^31", "is shared across threads without a lock")
_REWORDS = ("", " here", " in this function", " which breaks callers")
_SUGGESTIONS = ("Validate the input first.", "Use a constant-time comparison.",
                "Wrap it in a lock.", "Escape it with the driver's placeholder.",
                "Close it in a finally block.", "Check for None before using it.")


def _issue(rng: random.Random, files: list[str]) -> tuple[str, int, str, str]:
    subject, problem = rng.choice(_SUBJECTS), rng.choice(_PROBLEMS)
    function = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz_") for _ in range(10))
    return (rng.choice(files), rng.randint(1, 400),
            f"The {subject} in `{function}()` {problem}", rng.choice(_SUGGESTIONS))


def _report(rng: random.Random, issue: tuple[str, int, str, str]) -> Finding:
    path, line, description, suggestion = issue
    text = description + rng.choice(_REWORDS)
    if rng.random() < 0.3:
        text = "This " + text[0].lower() + text[1:] + " and should be fixed"
    if rng.random() < 0.2:
        text = text.replace("should", "must")
    if rng.random() < 0.2:
        suggestion = rng.choice(_SUGGESTIONS)
    return Finding(
        severity=rng.choice(SEVERITIES[:3]) if rng.random() < 0.3 else "P1",
        location=f"{path}:{max(1, line + rng.randint(-3, 3))}",
        description=text,
        suggestion=suggestion,
    )


def make_channels(total: int, channels: int, seed: int) -> dict[str, list[Finding]]:
    """About ``total`` findings spread over ``channels`` channels with heavy overlap."""
    rng = random.Random(seed)
    files = [f"src/pkg{i % 17}/module_{i}.py" for i in range(max(10, total // 40))]
    issues = [_issue(rng, files) for _ in range(max(1, total // 2))]
    names = [f"channel{i}" for i in range(channels)]
    out: dict[str, list[Finding]] = {name: [] for name in names}
    produced = 0
    while produced < total:
        issue = rng.choice(issues)
        for name in rng.sample(names, rng.randint(1, channels)):
            if produced == total:
                break
            out[name].append(_report(rng, issue))
            produced += 1
    return out


def _measure(run: Callable[[], object], runs: int) -> tuple[float, float, float]:
    """Median wall time, best wall time and median CPU time of ``runs`` runs, in seconds."""
    walls, cpus = [], []
    for _ in range(runs):
        collate_key.cache_clear()  # as in a fresh process
        gc.collect()
        wall, cpu = time.perf_counter(), time.process_time()
        run()
        cpus.append(time.process_time() - cpu)
        walls.append(time.perf_counter() - wall)
    return statistics.median(walls), min(walls), statistics.median(cpus)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="runs per case (medians reported)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    cases = ((2_000, 4, 0.15), (20_000, 8, 2.0))
    for total, channels, budget in cases:
        data = make_channels(total, channels, args.seed)
        groups = len(reconcile(data))
        median, best, cpu = _measure(partial(reconcile, data), args.runs)
        verdict = "ok" if median < budget else "OVER BUDGET"
        print(f"{total:>6} findings / {channels} channels -> {groups:>5} groups: "
              f"median {median:.3f} s (best {best:.3f} s, CPU median {cpu:.3f} s) "
              f"over {args.runs} runs; budget {budget} s: {verdict}")


if __name__ == "__main__":
    main()
