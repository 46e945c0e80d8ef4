"""stdout carries the report only: structured logs go to stderr."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).parents[3] / "src" / "mmr"
TOY_APP = Path(__file__).with_name("toy_app.py")


def test_a_command_that_logs_keeps_stdout_for_the_report():
    done = subprocess.run([sys.executable, str(TOY_APP), "log", "--message", "m1"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert (done.returncode, done.stdout) == (0, "the report\n")
    assert "toy_event" in done.stderr and "m1" in done.stderr


def test_only_mmr_log_imports_structlog():
    # structlog's default logger prints to stdout; mmr.log.get_logger configures it first.
    offenders = [
        str(path.relative_to(SRC)) for path in SRC.rglob("*.py")
        if path.name != "log.py" and any(
            line.lstrip().startswith(("import structlog", "from structlog"))
            for line in path.read_text(encoding="utf-8").splitlines()
        )
    ]
    assert offenders == []


def test_mmr_debug_set_after_the_first_record_still_enables_debug(monkeypatch, capsys):
    from mmr.log import get_logger

    monkeypatch.delenv("MMR_DEBUG", raising=False)
    get_logger("t").warning("first.record")  # configures structlog at the warning level
    monkeypatch.setenv("MMR_DEBUG", "1")
    get_logger("t").debug("later.debug.record")
    assert "later.debug.record" in capsys.readouterr().err
