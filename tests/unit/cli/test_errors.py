"""The error boundary: exceptions → one stderr line and an exit code; bugs → a crash log."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from mmr import __version__
from mmr.cli.errors import crash_report, describe, guard
from mmr.errors import ConfigError, JobNotFoundError, ReconcileInputError


def raising(exc: BaseException):
    def action() -> int:
        raise exc

    return action


@pytest.mark.parametrize(
    ("exc", "code"),
    [(ConfigError("bad key defaults.timeout in .mmr.yaml: expected a number"), 1),
     (JobNotFoundError("Job not found: mmr-000000000000"), 5),
     (ReconcileInputError("Input not found: x.json"), 5)],
)
def test_mmr_errors_print_one_line_and_their_exit_code(capsys, exc, code):
    assert guard(raising(exc)) == code
    out, err = capsys.readouterr()
    assert (out, err) == ("", f"mmr: error: {exc}\n")


def test_ctrl_c_exits_130_quietly(capsys):
    assert guard(raising(KeyboardInterrupt())) == 130
    assert capsys.readouterr() == ("", "")


def test_system_exit_codes_pass_through(capsys):
    assert guard(raising(SystemExit(3))) == 3
    assert guard(raising(SystemExit(None))) == 0
    assert guard(raising(SystemExit("fatal: message"))) == 1
    assert capsys.readouterr().err == "fatal: message\n"


def test_normal_return_passes_through():
    assert guard(lambda: 2) == 2


def _crash_logs(home: Path) -> list[Path]:
    return sorted((home / ".mmr" / "logs").glob("crash-*.log"))


def test_unexpected_error_writes_a_crash_log_and_names_it(capsys, isolated_home):
    assert guard(raising(KeyError("channels")), ["review", "--sync"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.splitlines()
    assert lines[0] == "mmr: error: KeyError: 'channels'"
    [log] = _crash_logs(isolated_home)
    assert lines[1] == f"mmr: this is a bug in mmr; the details are in {log}"
    assert "Traceback" not in err
    text = log.read_text()
    assert f"mmr: {__version__}" in text and "argv: mmr review --sync" in text
    assert "Traceback (most recent call last)" in text and "KeyError: 'channels'" in text
    assert log.stat().st_mode & 0o777 == 0o600


def test_mmr_debug_adds_the_traceback_to_stderr(capsys, monkeypatch, isolated_home):
    monkeypatch.setenv("MMR_DEBUG", "1")
    assert guard(raising(RuntimeError("kaput"))) == 1
    assert "Traceback (most recent call last)" in capsys.readouterr().err
    assert guard(raising(ConfigError("bad"))) == 1
    assert "Traceback (most recent call last)" in capsys.readouterr().err


def test_unwritable_crash_log_falls_back_to_the_traceback(capsys, monkeypatch, tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    monkeypatch.setenv("MMR_HOME", str(blocker))
    assert guard(raising(RuntimeError("kaput"))) == 1
    err = capsys.readouterr().err
    assert err.startswith("mmr: error: RuntimeError: kaput\nmmr: could not write a crash log")
    assert "Traceback (most recent call last)" in err


def test_describe_names_the_exception_type():
    assert describe(ValueError("x")) == "ValueError: x"
    assert describe(ValueError()) == "ValueError"


def test_crash_report_lists_versions_and_time():
    try:
        raise OSError("disk")
    except OSError as exc:
        report = crash_report(exc, ["status", "x"], datetime(2026, 5, 1, 10, 0, tzinfo=UTC))
    assert report.startswith("mmr crash report\ntime: 2026-05-01T10:00:00Z\n")
    for package in ("typer", "pydantic", "structlog"):
        assert f"\n{package}: " in report
    assert f"cwd: {Path.cwd()}" in report and "OSError: disk" in report
