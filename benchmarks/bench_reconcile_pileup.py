"""Benchmark reconciliation when findings pile up on a few locations (issue 16).

A hostile or runaway reply reports thousands of distinct findings on one or two lines.
The cases call ``reconcile()`` directly: through a parsed reply a channel keeps at most
500 findings (``mmr.parsers.limits``), so no review or ``mmr reconcile`` reaches these
sizes; they are the algorithm's stress test, the reachable worst case being 500 × the
channel count.
Targets: 10,000 findings from one channel on 2 locations under 1 s; 100,000 findings
across 4 channels (on 2 locations) under 5 s, medians. ``--reference-rule`` groups by
MMR 4.0.1's rule instead of the calibrated one, for comparison.

    python benchmarks/bench_reconcile_pileup.py [--runs 5] [--seed 7]
"""

from __future__ import annotations

import argparse
import random
from functools import partial

from bench_reconcile import _measure

from mmr.models import Finding
from mmr.reconcile.reconciler import reconcile

_WORDS = ("value", "buffer", "index", "handler", "token", "session", "loop", "counter",
          "cache", "lock", "query", "header", "path", "socket", "timer", "offset")


_PROBLEMS = ("is never checked for null", "leaks when the request fails",
             "overflows for large input",
             "is read after it was closed", "is shared across threads without a lock",
             "is not escaped before it reaches SQL", "can be empty here")


def make_pileup(total: int, channels: int, seed: int) -> dict[str, list[Finding]]:
    """``total`` findings spread over ``channels`` and 2 locations.

    Each names its own identifier in one of a few templates, the shape of a runaway reply
    that reports every variable of a hunk.
    """
    rng = random.Random(seed)
    out: dict[str, list[Finding]] = {f"channel{i}": [] for i in range(channels)}
    names = list(out)
    for n in range(total):
        ident = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz_") for _ in range(8))
        out[names[n % channels]].append(Finding(
            severity=rng.choice(("P0", "P1", "P2", "P3")),
            location=f"src/app.py:{1 + n % 2}",
            description=f"The {rng.choice(_WORDS)} `{ident}` {rng.choice(_PROBLEMS)}",
            suggestion=rng.choice(("Fix it.", "Validate first.", "")),
        ))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per case (medians reported)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--reference-rule", action="store_true")
    parser.add_argument("--sizes", default="10000:1:1,100000:4:5",
                        help="total:channels:budget_s cases, comma-separated")
    args = parser.parse_args()
    rule = "reference" if args.reference_rule else "calibrated"
    for case in args.sizes.split(","):
        total, channels, budget = (float(x) for x in case.split(":"))
        data = make_pileup(int(total), int(channels), args.seed)
        run = partial(reconcile, data, rule=rule)
        groups = len(run())
        median, best, cpu = _measure(run, args.runs)
        verdict = "ok" if median < budget else "OVER BUDGET"
        print(f"{int(total):>7} findings / {int(channels)} channels / 2 locations -> "
              f"{groups:>6} groups: median {median:.3f} s (best {best:.3f} s, CPU median "
              f"{cpu:.3f} s) over {args.runs} runs; budget {budget:g} s: {verdict}")


if __name__ == "__main__":
    main()
