"""The two console scripts are installed and keep the specs' usage exit code (1, not 2)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent


@pytest.mark.parametrize(("script", "flag"), [("review-minimax-run", "--worktree"),
                                              ("explore-minimax-run", "--prompt-file")])
def test_console_script_help_and_usage_error(script: str, flag: str, tmp_path: Path) -> None:
    path = BIN / script
    assert path.exists(), f"{script} is not installed beside {sys.executable} (pip install .)"
    shown = subprocess.run([str(path), "--help"], capture_output=True, text=True, check=False,
                           cwd=tmp_path, timeout=60)
    assert shown.returncode == 0
    assert flag in shown.stdout
    bad = subprocess.run([str(path)], capture_output=True, text=True, check=False,
                         cwd=tmp_path, timeout=60)
    assert bad.returncode == 1
    assert f"{script}: error: the following arguments are required" in bad.stderr
