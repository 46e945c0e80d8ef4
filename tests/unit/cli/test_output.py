"""Colour decision (STYLE item 12) and complete report output through real pipes (Decisions)."""

from __future__ import annotations

import contextlib
import fcntl
import io
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mmr.cli.output import use_color, write_report

TOY_APP = Path(__file__).with_name("toy_app.py")
ONE_MB = 1024 * 1024


class FakeTty(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self._tty = tty

    def isatty(self) -> bool:
        return self._tty


@pytest.mark.parametrize(
    ("env", "tty", "expected"),
    [
        ({"NO_COLOR": "1", "FORCE_COLOR": "1"}, True, False),  # NO_COLOR beats FORCE_COLOR
        ({"NO_COLOR": ""}, True, True),                        # empty NO_COLOR means unset
        ({"FORCE_COLOR": "1", "TERM": "dumb"}, False, True),   # FORCE_COLOR beats TERM
        ({"FORCE_COLOR": "0"}, True, False),
        ({"FORCE_COLOR": "false"}, True, False),
        ({"TERM": "dumb"}, True, False),                       # TERM=dumb beats a terminal
        ({"TERM": "xterm"}, True, True),
        ({}, False, False),                                    # a pipe gets no colour
    ],
)
def test_color_precedence(monkeypatch, env, tty, expected):
    for name in ("NO_COLOR", "FORCE_COLOR", "TERM"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert use_color(FakeTty(tty)) is expected


def test_color_reads_the_process_environment_by_default(monkeypatch):
    # conftest sets NO_COLOR=1 for every test.
    assert use_color(FakeTty(True)) is False
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("TERM", "xterm")
    assert use_color(FakeTty(True)) is True
    assert use_color(None) is False


def test_write_report_to_a_plain_stream_adds_one_newline():
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink):
        write_report('{"a": 1}')
        write_report("raw", newline=False)
    assert sink.getvalue() == '{"a": 1}\nraw'


def test_write_report_replaces_lone_surrogates(capfd):
    write_report("bad \udcff byte — ok")
    assert capfd.readouterr().out == "bad \ufffd byte — ok\n"


def _spawn_report(size: int, code: int, stdout: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, str(TOY_APP), "report", "--size", str(size), "--code", str(code)],
        stdout=stdout, stderr=subprocess.PIPE,
    )


def _read_slowly(fd: int) -> bytes:
    chunks = []
    time.sleep(0.3)  # let the writer fill the pipe and block first
    while chunk := os.read(fd, 65536):
        chunks.append(chunk)
    return b"".join(chunks)


@pytest.mark.slow
@pytest.mark.parametrize("non_blocking", [False, True])
def test_one_megabyte_report_arrives_complete_through_a_pipe(non_blocking):
    read_end, write_end = os.pipe()
    if non_blocking:
        # What a Node parent hands its child: the case that truncates the reference.
        flags = fcntl.fcntl(write_end, fcntl.F_GETFL)
        fcntl.fcntl(write_end, fcntl.F_SETFL, flags | os.O_NONBLOCK)
    child = _spawn_report(ONE_MB, 2, write_end)
    os.close(write_end)
    try:
        data = _read_slowly(read_end)
    finally:
        os.close(read_end)
    assert child.wait(timeout=60) == 2
    assert child.stderr is not None and child.stderr.read() == b""
    assert len(data) == ONE_MB
    assert data == (b"x" * 99 + b"\n") * (ONE_MB // 100) + b"x" * (ONE_MB % 100)


@pytest.mark.slow
def test_reader_going_away_keeps_the_exit_code_and_stderr_clean():
    child = _spawn_report(ONE_MB, 3, subprocess.PIPE)
    assert child.stdout is not None
    assert child.stdout.read(10) == b"x" * 10
    child.stdout.close()
    assert child.wait(timeout=60) == 3
    assert child.stderr is not None and child.stderr.read() == b""
