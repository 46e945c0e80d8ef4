"""What an incremental review of a pull request saves, and what carrying findings costs.

A real repository holds a pull request that changes 20 files (``--lines`` lines each, a
quarter of them changed); a follow-up push then changes 1 of those files. In one run, for
that follow-up push, the prompt a reviewer would receive is built both ways with the
pipeline's own functions (the diff from a ``gh`` that serves the pull request, redaction,
the assembled prompt):

- full: the whole pull request (``--full``, or no earlier review);
- incremental: only the change since the last reviewed head, with the
  ``## Incremental Review`` section.

Then :func:`mmr.reconcile.carry.carry` sets 1,000 previous findings against 1,000 new ones
over 50 files (a third reported again word for word, a third in other words, the rest
not, their lines touched by a change in some files): the median of ``--runs``.

    python benchmarks/bench_incremental.py [--lines 240] [--runs 7]
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

from mmr.diff.inputs import DiffRequest, resolve_diff
from mmr.models import ReconciledFinding
from mmr.prompt.plans import PreparedDiff, PromptParts
from mmr.reconcile.carry import carry, parse_changes
from mmr.reconcile.stable_id import identify
from mmr.review.incremental import plan_pull_review
from mmr.store.pulls import PullRecord, record_path, write_stored

FAKE_GH = """#!{python}
import sys
from pathlib import Path
here = Path({here!r})
sys.stdout.write((here / ("diff.txt" if sys.argv[2] == "diff" else "view.json")).read_text())
"""


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "b@example.invalid",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "b@example.invalid"}
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                          text=True, env=env).stdout


def write_files(repo: Path, lines: int, version: int, files: range) -> None:
    for number in files:
        path = repo / "src" / f"module_{number}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(
            f"value_{number}_{i} = compute({i}, {version if i % 4 == 0 else 0})\n"
            for i in range(lines)))


def push(repo: Path, gh_dir: Path) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "push")
    head = git(repo, "rev-parse", "HEAD").strip()
    (gh_dir / "diff.txt").write_text(git(repo, "diff", "main...pr"))
    (gh_dir / "view.json").write_text(json.dumps(
        {"headRefOid": head, "url": "https://github.com/acme/app/pull/7"}))
    return head


def prompt_bytes(repo: Path, *, full: bool) -> int:
    """The bytes of the prompt every channel gets for pull request 7, as the pipeline
    builds it."""
    diff = resolve_diff(DiffRequest(pr=7), repo)
    _, reviewed, section = plan_pull_review(7, diff, repo, full=full, diff_exclude=())
    prepared = PreparedDiff.prepare(reviewed.text, reviewed.line_count)
    return len(PromptParts(incremental=section).assemble(prepared.redacted).encode())


def finding(path: str, line: int, description: str) -> ReconciledFinding:
    probe = ReconciledFinding(severity="P2", location=f"{path}:{line}", description=description,
                              suggestion="", confidence="medium", sources=["a"],
                              agreement="unique", finding_key="", description_shingle=[])
    return probe.model_copy(update={"finding_key": identify(probe).finding_key})


def carry_figures(runs: int) -> tuple[list[float], str]:
    topics = ["null dereference of the cached session", "unbounded retry loop on timeout",
              "SQL built by string concatenation", "file handle never closed on error"]
    previous = [finding(f"src/m{i % 50}.py", 5 * (i // 50) + 1,
                        f"{topics[i % 4]} #{i}" if i % 3 != 2
                        else f"docstring mentions a removed parameter #{i}")
                for i in range(1000)]
    current = []
    for i in range(1000):
        path, line = f"src/m{i % 50}.py", 5 * (i // 50) + 1
        if i % 3 == 0:
            current.append(finding(path, line, f"{topics[i % 4]} #{i}"))
        elif i % 3 == 1:
            current.append(finding(path, line + 1, f"#{i}: {topics[i % 4]} (reworded)"))
        else:
            current.append(finding(path, line + 2, f"unrelated naming nit {i + 5000}"))
    changes = parse_changes("".join(
        f"--- a/src/m{f}.py\n+++ b/src/m{f}.py\n@@ -{10 * f + 1},2 +{10 * f + 1},3 @@\n"
        "-a\n-b\n+a\n+b\n+c\n" for f in range(50)))
    figures = []
    for _ in range(runs):
        fresh = [f.model_copy() for f in current]
        started = time.perf_counter()
        found, fixed = carry(fresh, previous, changes)
        figures.append(time.perf_counter() - started)
    carried = len(found) - len(current)
    reported = sum(f.state == "open" for f in found) - carried
    return figures, f"{reported} reported again, {carried} carried open, {len(fixed)} fixed"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lines", type=int, default=240)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mmr-bench-inc-") as tmp:
        root = Path(tmp)
        os.environ["MMR_HOME"] = str(root / "home")
        gh_dir = root / "bin"
        gh_dir.mkdir()
        (gh_dir / "gh").write_text(FAKE_GH.format(python=sys.executable, here=str(gh_dir)))
        (gh_dir / "gh").chmod(0o755)
        os.environ["PATH"] = f"{gh_dir}{os.pathsep}{os.environ['PATH']}"
        repo = root / "repo"
        repo.mkdir()
        git(repo, "init", "-q", "-b", "main")
        write_files(repo, args.lines, 0, range(20))
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "base")
        git(repo, "checkout", "-q", "-b", "pr")
        write_files(repo, args.lines, 1, range(20))
        first = push(repo, gh_dir)
        path = record_path(Path(os.environ["MMR_HOME"]), "acme/app", 7)
        assert path is not None
        write_stored(path, PullRecord(head=first, job_id="mmr-000000000000", findings=[]))
        write_files(repo, args.lines, 2, range(1))  # the follow-up push: 1 of the 20 files
        push(repo, gh_dir)
        full, incremental = prompt_bytes(repo, full=True), prompt_bytes(repo, full=False)
    print(f"pull request: 20 files x {args.lines} lines, follow-up push touching 1 file")
    print(f"prompt bytes, full review:        {full:>9,}")
    print(f"prompt bytes, incremental review: {incremental:>9,} ({incremental / full:.1%})")
    figures, outcome = carry_figures(args.runs)
    print(f"carry 1,000 previous x 1,000 new findings: median {statistics.median(figures):.3f} s"
          f" (min {min(figures):.3f} s, {args.runs} runs; {outcome})")


if __name__ == "__main__":
    main()
