"""Fan-out overhead of ``mmr review --sync``: wall time minus the slowest channel's time.

Builds a throw-away git repository and N fake channel executables that each sleep
``--sleep`` seconds and reply with a clean review, then times the installed ``mmr``
(or ``python -m mmr``) end to end. Run: ``python benchmarks/bench_review.py``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

FAKE = textwrap.dedent(
    """\
    #!{python}
    import sys, time
    sys.stdin.buffer.read()
    time.sleep({sleep})
    sys.stdout.write('{{"approved": true, "findings": [], "summary": "clean"}}\\n')
    """
)


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def build(root: Path, channels: int, sleep: float) -> tuple[Path, dict[str, str]]:
    bin_dir, repo = root / "bin", root / "repo"
    bin_dir.mkdir()
    repo.mkdir()
    names = [f"fake{i}" for i in range(channels)]
    for name in names:
        exe = bin_dir / name
        exe.write_text(FAKE.format(python=sys.executable, sleep=sleep))
        exe.chmod(0o755)
    _git(repo, "init", "-q", "-b", "main")
    config = {"defaults": {"min_completed_channels": 1}, "channels": {}}
    lines = ["defaults:", "  min_completed_channels: 1", "channels:"]
    lines += [f"  {name}: {{command: {name}}}" for name in names]
    (repo / ".mmr.yaml").write_text("\n".join(lines) + "\n")
    (repo / "app.py").write_text("x = 1\n")
    _git(repo, "add", ".")
    _git(repo, "-c", "user.name=b", "-c", "user.email=b@example.invalid", "commit", "-qm", "base")
    _git(repo, "checkout", "-qb", "feature")
    (repo / "app.py").write_text("x = 1\ny = eval(input())\n")
    _git(repo, "-c", "user.name=b", "-c", "user.email=b@example.invalid", "commit", "-qam", "f")
    del config
    env = dict(os.environ)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    env["MMR_HOME"] = str(root / "mmr-home")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return repo, env


def mmr_command() -> list[str]:
    exe = shutil.which("mmr", path=str(Path(sys.executable).parent))
    return [exe] if exe else [sys.executable, "-m", "mmr"]


def measure(channels: int, sleep: float, runs: int) -> list[float]:
    with tempfile.TemporaryDirectory(prefix="mmr-bench-") as tmp:
        repo, env = build(Path(tmp), channels, sleep)
        argv = [*mmr_command(), "review", "--base", "main", "--sync", "--quiet"]
        times = []
        for _ in range(runs + 1):  # the first run warms the bytecode cache
            start = time.perf_counter()
            done = subprocess.run(argv, cwd=repo, env=env, capture_output=True, check=False)
            times.append(time.perf_counter() - start)
            if done.returncode != 0:
                sys.exit(f"mmr exited {done.returncode}: {done.stderr.decode()[-2000:]}")
        return times[1:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--channels", type=int, nargs="+", default=[1, 4, 8])
    parser.add_argument("--sleep", type=float, default=2.0)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"review --sync, channels sleeping {args.sleep}s, median of {args.runs} runs")
    for count in args.channels:
        times = measure(count, args.sleep, args.runs)
        median = statistics.median(times)
        print(f"  {count} channel(s): wall {median:.3f}s  overhead {median - args.sleep:.3f}s")


if __name__ == "__main__":
    main()
