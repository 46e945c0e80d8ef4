"""A channel that prints 200 MB: mmr's memory stays bounded and nothing is silently cut.

Stdout is streamed to ``channels/<ch>.stdout`` while the channel runs; only the first
16 MiB stay in memory. A reply over that limit is ``failed`` with a log that gives its
size and where the full output is — a review mmr could not read whole never counts as a
clean one. The other channels' results stand.

Peak memory is measured around a real ``python -m mmr`` child: a fresh interpreter runs
it and reports ``getrusage(RUSAGE_CHILDREN).ru_maxrss`` — the largest of mmr and the
processes it waited for — so earlier tests in this pytest process cannot inflate it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from mmr.dispatch.attempt import MAX_REPLY_BYTES
from tests.fakes.plugin import FakeCliFactory
from tests.integration.faults.conftest import (
    CLEAN,
    NO_COMPENSATOR,
    NO_COMPENSATOR_DEFAULTS,
    RunMmr,
    the_job,
    write_user_config,
)
from tests.integration.faults.test_misbehaving_channels import (
    ADVISORY,
    assert_others_kept_and_verdict_honest,
)
from tests.integration.git_repo_builder import GitRepo

FLOOD = 200 * 1000 * 1000
#: mmr's own footprint is ~70 MB; without the cap it was ~1 GB (the reply held 3-4 times).
RSS_BUDGET_MB = 160

_MEASURE = """
import json, resource, subprocess, sys, time
started = time.monotonic()
done = subprocess.run([sys.executable, "-m", "mmr", *sys.argv[1:]], capture_output=True,
                      text=True)
print(json.dumps({"code": done.returncode, "out": done.stdout, "err": done.stderr,
                  "seconds": time.monotonic() - started,
                  "maxrss_kb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))
"""


def run_measured(*args: str, cwd: Path) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", _MEASURE, *args], cwd=cwd, env=dict(os.environ),
                          capture_output=True, text=True, timeout=300, check=True)
    report: dict[str, object] = json.loads(done.stdout)
    return report


def test_200mb_of_stdout_keeps_only_the_parse_cap_on_disk_and_is_not_parsed(
        repo: GitRepo, fake_cli: FakeCliFactory) -> None:
    fake_cli("ok1", stdout=CLEAN)
    fake_cli("ok2", stdout={"approved": True, "findings": [ADVISORY], "summary": "one nit"})
    fake_cli("bad", stdout=CLEAN, print_bytes=FLOOD)  # a valid reply, then 200 MB of noise
    write_user_config({"ok1": {"command": "ok1"}, "ok2": {"command": "ok2"},
                       "bad": {"command": "bad", "timeout": 120}, **NO_COMPENSATOR},
                      defaults=NO_COMPENSATOR_DEFAULTS)

    report = run_measured("review", "--sync", "--channels", "ok1,ok2,bad", cwd=repo.root)

    assert isinstance(report["out"], str) and report["out"], report["err"]
    doc = json.loads(report["out"])
    assert isinstance(report["code"], int)
    assert_others_kept_and_verdict_honest(report["code"], doc)
    spool = the_job() / "channels" / "bad.stdout"
    size = len(json.dumps(CLEAN)) + FLOOD
    assert doc["per_channel"]["bad"]["status"] == "failed"
    assert doc["per_channel"]["bad"]["error"] == (
        f"Channel failed: stdout was {size} bytes, over the {MAX_REPLY_BYTES} bytes mmr reads "
        f"from a reply, so it was not parsed; its first {MAX_REPLY_BYTES} bytes, redacted "
        f"and cut at the last whitespace, are in {spool}")
    # At most the parse cap is kept on disk (privately), up to its last whitespace; the
    # rest was drained.
    assert json.dumps(CLEAN).startswith(spool.read_text()) and spool.stat().st_size > 0
    assert spool.stat().st_mode & 0o777 == 0o600
    assert not (the_job() / "channels" / "bad.json").exists()
    # A reply that fits needs no spool: it is in <ch>.json, as in the reference.
    assert not (the_job() / "channels" / "ok1.stdout").exists()
    assert (the_job() / "channels" / "ok1.json").exists()
    maxrss_mb = int(report["maxrss_kb"]) / 1024  # type: ignore[call-overload]
    print(f"\npeak RSS {maxrss_mb:.0f} MB, review took {report['seconds']:.1f}s")
    assert maxrss_mb < RSS_BUDGET_MB


def test_reply_just_under_the_limit_is_parsed_whole(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    """The limit is a size, not a cut: a long but complete reply still counts."""
    reply = {**CLEAN, "summary": "p" * (MAX_REPLY_BYTES - 1024)}
    fake_cli("ok1", stdout=CLEAN)
    fake_cli("long", stdout=reply)
    write_user_config({"ok1": {"command": "ok1"}, "long": {"command": "long"}})
    result = run_mmr("review", "--sync", cwd=repo.root)
    doc = result.json()
    assert doc["per_channel"]["long"]["status"] == "completed", result.err
    assert (result.code, doc["verdict"]) == (0, "pass")
    assert not (the_job() / "channels" / "long.stdout").exists()
