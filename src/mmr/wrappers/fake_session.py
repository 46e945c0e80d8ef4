"""The review wrapper's test seam: a stand-in for ``ask-minimax-run`` that replays canned files.

With ``REVIEW_MINIMAX_FAKE_JSON=<file>`` set, ``review-minimax-run`` starts this module in
place of the live CLI (through a small shim in its scratch directory), so the dispatcher,
the result gate, the clean-tree assertion and the retry still run on real output:

- the reply is the envelope in ``REVIEW_MINIMAX_FAKE_JSON``, as is;
- ``REVIEW_MINIMAX_FAKE_FINDINGS=<file>`` plays the sub-session's findings: its text
  becomes the envelope's ``result`` (mmr's MiniMax channel returns its findings there
  instead of writing a file). Without it the envelope's own ``result`` stands,
  so an envelope whose run "wrote no findings" fails the gate and exits 3 after a retry.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path

FAKE_JSON_ENV = "REVIEW_MINIMAX_FAKE_JSON"
FAKE_FINDINGS_ENV = "REVIEW_MINIMAX_FAKE_FINDINGS"
SHIM_NAME = "ask-minimax-run"


def fake_reply(envelope_path: Path, findings_path: Path | None) -> str:
    """The canned envelope, with ``result`` replaced by the findings text when given."""
    envelope = envelope_path.read_text(encoding="utf-8")
    if findings_path is None:
        return envelope
    findings = findings_path.read_text(encoding="utf-8")
    try:
        data = json.loads(envelope)
    except ValueError:
        return envelope  # not JSON: replayed as is, and the run fails as a live one would
    if not isinstance(data, dict):
        return envelope
    data["result"] = findings
    return json.dumps(data)


def write_shim(directory: Path) -> Path:
    """An executable ``ask-minimax-run`` in ``directory`` that runs :func:`main`."""
    package_parent = Path(__file__).resolve().parents[2]
    code = (f"import sys; sys.path.insert(0, {str(package_parent)!r}); "
            "from mmr.wrappers.fake_session import main; raise SystemExit(main())")
    directory.mkdir(parents=True, exist_ok=True)
    shim = directory / SHIM_NAME
    shim.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} -c {shlex.quote(code)} "
                    '"$@"\n', encoding="utf-8")
    shim.chmod(0o700)
    return shim


def main() -> int:
    """Drain the prompt from stdin, print the canned reply; exit 1 if the files are gone."""
    sys.stdin.buffer.read()
    envelope = os.environ.get(FAKE_JSON_ENV, "")
    findings = os.environ.get(FAKE_FINDINGS_ENV) or None
    try:
        reply = fake_reply(Path(envelope), None if findings is None else Path(findings))
    except OSError as exc:
        sys.stderr.write(f"fake ask-minimax-run: cannot read {exc.filename}: {exc.strerror}\n")
        return 1
    sys.stdout.write(reply)
    sys.stdout.flush()
    return 0
