"""pytest plugin: run a console entry point in-process and capture what it did.

Enabled once in ``tests/conftest.py`` (beside the fakes plugin). Two fixtures:

- ``run_cli(main, *args, cwd=None, stdin=None, env=None, unset=())`` calls
  ``main(list(args))`` the way the console script would — so argument parsing, the error
  boundary, exit codes and output writing are the real ones — in ``cwd`` (default: the
  current directory), with ``stdin`` (text or bytes) as ``sys.stdin``, ``env`` set and
  ``unset`` removed for that run only.
- ``run_mmr(*args, cwd=..., stdin=None, env=None)``: the same for ``mmr`` itself.

Both return a :class:`CliResult`: the exit code with the captured stdout and stderr.
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

EntryPoint = Callable[[list[str]], int]


@dataclass(frozen=True)
class CliResult:
    """What one in-process run of a console entry point did."""

    code: int
    out: str
    err: str

    @property
    def rc(self) -> int:
        """The exit code (the name the ``mmr config`` and ``mmr doctor`` tests use)."""
        return self.code

    def json(self) -> Any:
        """Stdout parsed as JSON."""
        return json.loads(self.out)


RunCli = Callable[..., CliResult]
RunMmr = Callable[..., CliResult]


@pytest.fixture
def run_cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> RunCli:
    """``run_cli(main, *args, cwd=..., stdin=..., env=..., unset=...)``: run ``main``."""

    def run(main: EntryPoint, *args: str, cwd: Path | None = None,
            stdin: str | bytes | None = None, env: Mapping[str, str] | None = None,
            unset: Sequence[str] = ()) -> CliResult:
        capsys.readouterr()  # drop anything printed before this run
        with monkeypatch.context() as patch:
            if cwd is not None:
                patch.chdir(cwd)
            for key, value in (env or {}).items():
                patch.setenv(key, value)
            for key in unset:
                patch.delenv(key, raising=False)
            if stdin is not None:
                data = stdin.encode() if isinstance(stdin, str) else stdin
                patch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
            code = main(list(args))
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)

    return run


@pytest.fixture
def run_mmr(run_cli: RunCli) -> RunMmr:
    """``run_mmr(*args, cwd=..., stdin=..., env=...)``: ``mmr <args>`` in ``cwd``."""
    from mmr.cli.main import main

    def run(*args: str, cwd: Path, stdin: str | bytes | None = None,
            env: Mapping[str, str] | None = None) -> CliResult:
        return run_cli(main, *args, cwd=cwd, stdin=stdin, env=env)

    return run
