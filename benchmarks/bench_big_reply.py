"""Peak RSS of parsing and reconciling one 16 MiB reply (issue 16 budget: < 300 MB).

Two replies just under the 16 MiB read cap, each parsed with the ``default`` parser,
reconciled, and encoded as the results JSON, in a fresh interpreter:
``one-field``: one 16 MB description (1.3 GB RSS and 124 MB of JSON before the field
limit); ``many``: 36,000 findings of ~400 bytes.

    python benchmarks/bench_big_reply.py
"""

from __future__ import annotations

import json
import subprocess
import sys

_CHILD = r"""
import json, resource, sys, time
from mmr.parsers import parse_channel_output
from mmr.reconcile.reconciler import reconcile
case = sys.argv[1]
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
del findings
start = time.perf_counter()
parsed = parse_channel_output(raw, "default")
merged = reconcile({"ch": parsed.findings})
out = json.dumps([m.to_json_dict() for m in merged])
print(json.dumps({"reply_bytes": len(raw), "findings_kept": len(parsed.findings),
                  "json_bytes": len(out), "seconds": time.perf_counter() - start,
                  "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


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


if __name__ == "__main__":
    main()
