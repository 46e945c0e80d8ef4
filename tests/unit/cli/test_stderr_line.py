"""Every line mmr writes to stderr goes through one helper, :func:`mmr.log.stderr_line`."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mmr.log import stderr_line

SRC = Path(__file__).parents[3] / "src" / "mmr"
#: log.py is the helper; the fake MiniMax session is a test double shipped as a script.
ALLOWED = {"log.py", "wrappers/fake_session.py"}


def test_the_line_goes_to_stderr_with_a_newline(capsys):
    stderr_line("mmr: warning: something")
    assert capsys.readouterr() == ("", "mmr: warning: something\n")


def test_a_closed_stderr_drops_the_line(monkeypatch):
    closed = io.StringIO()
    closed.close()
    monkeypatch.setattr(sys, "stderr", closed)
    stderr_line("nobody reads this")  # no ValueError


def test_a_broken_stderr_drops_the_line(monkeypatch):
    class Broken(io.StringIO):
        def write(self, text: str) -> int:
            raise BrokenPipeError

    monkeypatch.setattr(sys, "stderr", Broken())
    stderr_line("nobody reads this")  # no BrokenPipeError


def test_what_stdout_buffers_comes_first_when_both_share_a_pipe():
    probe = ("import sys\nfrom mmr.log import stderr_line\n"
             "sys.stdout.write('report line\\n')\nstderr_line('a notice')\n")
    done = subprocess.run([sys.executable, "-c", probe], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=60, check=True)
    assert done.stdout == "report line\na notice\n"


@pytest.mark.parametrize("pattern", [r"sys\.stderr\.write\(", r"\bprint\(.*file=sys\.stderr"])
def test_no_other_module_writes_stderr_lines_itself(pattern):
    offenders = [
        str(path.relative_to(SRC)) for path in sorted(SRC.rglob("*.py"))
        if str(path.relative_to(SRC)) not in ALLOWED
        and re.search(pattern, path.read_text("utf-8"))
    ]
    assert offenders == []
