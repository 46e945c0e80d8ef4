"""Peak RSS of parsing and reconciling one 16 MiB reply (issue 16 budget: < 300 MB).

Two replies just under the 16 MiB read cap, each parsed with the ``default`` parser,
reconciled, and encoded as the results JSON, in a fresh interpreter:
``one-field``: one 16 MB description (1.3 GB RSS and 124 MB of JSON before the field
limit); ``many``: 36,000 findings of ~400 bytes.

Then the same two replies end to end, as a user meets them: ``python -m mmr review --sync``
in a scratch git repository and ``MMR_HOME``, the reply printed by a channel script beside
a clean channel; the peak RSS is the review process's own (``wait4``), stdout is counted.

    python benchmarks/bench_big_reply.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_REPLY = r"""
def make_reply(case):
    cap = 16 * 1024 * 1024 - 4096
    if case == "one-field":
        text = ("the cache key omits the tenant id " * (cap // 34))[: cap - 200]
        findings = [{"severity": "P1", "location": "a.py:1", "description": text,
                     "suggestion": "fix"}]
    else:
        findings = [{"severity": "P2", "location": f"src/m{i % 50}.py:{i % 300}",
                     "description": f"value {i} " + "is not validated before use " * 12,
                     "suggestion": "validate"} for i in range(36_000)]
    raw = json.dumps({"approved": False, "findings": findings, "summary": "big"})
    assert len(raw) < 16 * 1024 * 1024, len(raw)
    return raw
"""

_CHILD = r"""
import json, resource, sys, time
from mmr.parsers import parse_channel_output
from mmr.reconcile.reconciler import reconcile
""" + _REPLY + r"""
raw = make_reply(sys.argv[1])
start = time.perf_counter()
parsed = parse_channel_output(raw, "default")
merged = reconcile({"ch": parsed.findings})
out = json.dumps([m.to_json_dict() for m in merged])
print(json.dumps({"reply_bytes": len(raw), "findings_kept": len(parsed.findings),
                  "json_bytes": len(out), "seconds": time.perf_counter() - start,
                  "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=b", "-c", "user.email=b@b", *args], cwd=repo,
                   check=True, capture_output=True)


def _end_to_end(case: str, scratch: Path) -> dict[str, float]:
    """``mmr review --sync`` with the reply from a channel; its peak RSS and output."""
    reply = scratch / f"{case}.json"
    with reply.open("wb") as out:  # the very reply the in-process case parses
        subprocess.run([sys.executable, "-c", "import json, sys\n" + _REPLY
                        + "sys.stdout.write(make_reply(sys.argv[1]))", case],
                       stdout=out, check=True)
    repo, home = scratch / f"repo-{case}", scratch / f"home-{case}"
    repo.mkdir()
    home.mkdir()
    _git(repo, "init", "-q")
    (repo / "a.py").write_text("x = 1\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "base")
    (repo / "a.py").write_text("x = 2\n")
    script = scratch / f"channel-{case}"
    script.write_text(f"#!/bin/sh\ncat > /dev/null\ncat {reply}\n")
    script.chmod(0o755)
    clean = scratch / "clean"
    clean.write_text('#!/bin/sh\ncat > /dev/null\necho \'{"approved": true, "findings": [], '
                     '"summary": "ok"}\'\n')
    clean.chmod(0o755)
    builtins = ["claude", "codex", "grok", "antigravity", "opencode", "doc-conformance"]
    (home / "config.yaml").write_text(json.dumps({
        "version": 1, "channels_disabled": builtins,
        "channels": {"big": {"command": str(script)}, "clean": {"command": str(clean)}},
        "defaults": {"cache": {"max_age": 0}}}))
    env = {**os.environ, "MMR_HOME": str(home)}
    start = time.perf_counter()
    with (scratch / "stdout").open("wb") as out:
        child = subprocess.Popen([sys.executable, "-m", "mmr", "review", "--sync"], cwd=repo,
                                 env=env, stdout=out, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    return {"seconds": time.perf_counter() - start, "maxrss_mb": usage.ru_maxrss / 1024,
            "stdout_bytes": (scratch / "stdout").stat().st_size, "exit": child.returncode}


def main() -> None:
    for case in ("one-field", "many"):
        done = subprocess.run([sys.executable, "-c", _CHILD, case], capture_output=True,
                              text=True, check=True)
        report = json.loads(done.stdout)
        verdict = "ok" if report["maxrss_mb"] < 300 else "OVER BUDGET"
        print(f"{case:<9} reply {report['reply_bytes'] / 2**20:.1f} MiB -> "
              f"{report['findings_kept']} findings kept, results JSON "
              f"{report['json_bytes'] / 2**20:.2f} MiB, {report['seconds']:.2f} s, "
              f"peak RSS {report['maxrss_mb']:.0f} MB (budget 300 MB): {verdict}")
    with tempfile.TemporaryDirectory() as scratch:
        for case in ("one-field", "many"):
            run = _end_to_end(case, Path(scratch))
            verdict = "ok" if run["maxrss_mb"] < 300 else "OVER BUDGET"
            print(f"{case:<9} mmr review --sync: exit {run['exit']:.0f}, "
                  f"{run['seconds']:.2f} s, stdout {run['stdout_bytes'] / 2**20:.2f} MiB, "
                  f"peak RSS {run['maxrss_mb']:.0f} MB (budget 300 MB): {verdict}")


if __name__ == "__main__":
    main()
