"""What the review workspace costs: its export against a bare ``git archive | tar -x``.

A 5,000-file repository of source-like text (about 3 KiB a file; one line in six names
``token`` or ``password``, which the secret-word pass must look at, though none assigns
a value that could be redacted; a few files with real-looking credentials) is exported,
interleaved in one run:

- bare: ``git archive HEAD | tar -x`` into an empty directory, the floor of any export;
- first: :func:`mmr.dispatch.workspace.export_workspace` with an empty redaction cache
  (every blob read and redacted);
- repeat: the same with the cache the first export filled (a repeated review).

Each figure is the median wall time of ``--runs`` repetitions, and the CPU time beside it:
every process's (the bare pipeline's git and tar; an export's own and its git's);
removing the directories is not timed. Every tree is written
into the same directory, so each meets the same file-system state.
``--compare`` times a previous tree's export (its ``src/``, in a child process) in the
same runs.

    python benchmarks/bench_workspace.py [--runs 7] [--files 5000] [--compare OLD/src]
        [--tree DIR]   # a real code base instead: the Python standard library, or a real
                       # 5,000-file repository, Django's source distribution
                       # (pip download --no-deps --no-binary :all: django==5.1.4)

Everything is made under the system's temporary directory: ``TMPDIR=/dev/shm`` (a tmpfs)
gives a floor that stays put; on ext4 it moves 0.08-1.0 s with what the last runs freed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mmr.diff.tree import TreeSource
from mmr.dispatch.workspace import export_workspace

WORDS = ("value", "result", "items", "config", "handler", "request", "user", "parse",
         "token", "password", "session", "cache", "index", "total", "buffer", "retry")


def source_file(rng: random.Random, number: int) -> str:
    lines = [f'"""Module {number}: generated for the workspace benchmark."""', ""]
    while sum(len(line) for line in lines) < 3000:
        name = "_".join(rng.sample(WORDS, 2))
        lines += [f"def {name}_{rng.randrange(10**6)}(a, b):",
                  f"    {rng.choice(WORDS)} = a + b * {rng.randrange(100)}",
                  f"    return {rng.choice(WORDS)}  # {rng.choice(WORDS)} {rng.choice(WORDS)}",
                  ""]
    if number % 500 == 0:
        lines.append(f'GITHUB_TOKEN = "ghp_{rng.randrange(10**30):036d}"')
    return "\n".join(lines) + "\n"


def build(root: Path, files: int, tree: Path | None = None) -> Path:
    """The synthetic repository, or a copy of ``tree`` (a real code base) committed."""
    repo = root / "repo"
    if tree is not None:
        shutil.copytree(tree, repo, symlinks=True,
                        ignore=shutil.ignore_patterns("__pycache__", ".git"))
        files = 0
    else:
        repo.mkdir()
    rng = random.Random(28)
    for number in range(files):
        path = repo / f"pkg{number % 40}" / f"mod{number % 7}" / f"file_{number}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source_file(rng, number))
    for args in (["init", "-q", "-b", "main"], ["add", "-A"],
                 ["-c", "user.name=bench", "-c", "user.email=bench@example.invalid",
                  "commit", "-q", "-m", "tree"]):
        subprocess.run(["git", *args], cwd=repo, check=True)
    return repo


def bare(repo: Path, target: Path) -> None:
    target.mkdir()
    archive = subprocess.Popen(["git", "archive", "HEAD"], cwd=repo, stdout=subprocess.PIPE)
    subprocess.run(["tar", "-x", "-C", str(target)], stdin=archive.stdout, check=True)
    if archive.stdout is not None:
        archive.stdout.close()
    if archive.wait() != 0:
        raise SystemExit("git archive failed")


_CHILD = """
import json, resource, sys, time
from pathlib import Path
from mmr.diff.tree import TreeSource
from mmr.dispatch.workspace import export_workspace
def cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + usage.ru_utime + usage.ru_stime
source, cache = TreeSource("commit", Path(sys.argv[1]), sys.argv[2]), Path(sys.argv[3])
tmp_root = Path(sys.argv[4])
out = {}
for kind in ("first", "repeat"):
    wall, used = time.perf_counter(), cpu()
    workspace = export_workspace(source, trusted_ref=None, cache_dir=cache, tmp_root=tmp_root)
    out[kind] = [time.perf_counter() - wall, cpu() - used]
    workspace.cleanup()
print(json.dumps(out))
"""


def previous(src: Path, repo: Path, commit: str, cache: Path) -> dict[str, list[float]]:
    """A first export and a repeat by the tree at ``src`` (timed inside its process)."""
    done = subprocess.run([sys.executable, "-c", _CHILD, str(repo), commit, str(cache),
                           str(repo.parent)],
                          env={**os.environ, "PYTHONPATH": str(src)}, check=True,
                          capture_output=True, text=True)
    figures: dict[str, list[float]] = json.loads(done.stdout)
    return figures


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--compare", type=Path, help="a previous tree's src/, timed beside")
    parser.add_argument("--tree", type=Path,
                        help="export a copy of this directory (a real code base) instead")
    args = parser.parse_args()
    kinds = ["bare", "first", "repeat"] + (["previous first", "previous repeat"]
                                           if args.compare else [])
    wall: dict[str, list[float]] = {kind: [] for kind in kinds}
    cpu: dict[str, list[float]] = {kind: [] for kind in kinds}
    with tempfile.TemporaryDirectory(prefix="mmr-bench-ws-") as tmp:
        root = Path(tmp)
        repo = build(root, args.files, args.tree)
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, check=True,
                                capture_output=True, text=True).stdout.strip()
        source = TreeSource("commit", repo, commit)
        for run in range(args.runs):
            target = root / f"bare-{run}"
            start, used = time.perf_counter(), children_cpu()
            bare(repo, target)
            wall["bare"].append(time.perf_counter() - start)
            cpu["bare"].append(children_cpu() - used)
            # Kept until the end: ext4 allocates inodes slower just after many were freed
            # (it skips recently deleted ones), which would bill the next export.
            cache = root / f"cache-{run}"
            for kind in ("first", "repeat"):
                start, used = time.perf_counter(), time.process_time() + children_cpu()
                workspace = export_workspace(source, trusted_ref=None, cache_dir=cache,
                                             tmp_root=root)
                wall[kind].append(time.perf_counter() - start)
                cpu[kind].append(time.process_time() + children_cpu() - used)
                written = workspace.written
                workspace.cleanup()
            if args.compare:
                for kind, (seconds, used_cpu) in previous(
                        args.compare, repo, commit, root / f"prev-cache-{run}").items():
                    wall[f"previous {kind}"].append(seconds)
                    cpu[f"previous {kind}"].append(used_cpu)
    floor, cpu_floor = statistics.median(wall["bare"]), statistics.median(cpu["bare"])
    print(f"{args.tree or args.files} ({written} files exported), {args.runs} runs, "
          "medians (min-max):")
    for kind in kinds:
        print(f"  {kind:<16} {statistics.median(wall[kind]):.3f} s "
              f"({min(wall[kind]):.3f}-{max(wall[kind]):.3f})  "
              f"{statistics.median(wall[kind]) / floor:.2f}x the floor; "
              f"CPU {statistics.median(cpu[kind]):.3f} s "
              f"({statistics.median(cpu[kind]) / cpu_floor:.2f}x)")


if __name__ == "__main__":
    main()
