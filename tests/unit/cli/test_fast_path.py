"""The typer-free route of ``review``/``results``/``reconcile`` (mmr.cli.fast_path).

It must be indistinguishable from the typer route: the same grammar, the same values
reaching the command body, the same errors and exit codes. Each test runs a command line
both ways — :func:`mmr.cli.dispatch.run` (typer) and :func:`run_fast` — with the body
replaced by a recorder, and compares what the body received, value *and* type.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import typer

from mmr.cli import bodies
from mmr.cli.app import app
from mmr.cli.dispatch import run
from mmr.cli.fast_path import fast_command, run_fast
from mmr.cli.introspect import command_spec
from mmr.cli.options import COMMANDS
from mmr.errors import UsageError


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, dict[str, Any]]]:
    """Replace every fast command's body with a recorder that returns 0."""
    calls: list[tuple[str, dict[str, Any]]] = []
    for command in COMMANDS.values():
        def record(*, _body: str = command.body, **kwargs: Any) -> int:
            calls.append((_body, kwargs))
            return 0
        monkeypatch.setattr(bodies, command.body, record)
    return calls


def both_routes(args: list[str], calls: list[tuple[str, dict[str, Any]]]) -> tuple[Any, Any]:
    assert run(args) == 0
    via_typer = calls.pop()
    call = fast_command(args)
    assert call is not None, f"the fast route declined {args}"
    assert run_fast(call, args) == 0
    via_fast = calls.pop()
    return via_typer, via_fast


def typed(kwargs: dict[str, Any]) -> dict[str, tuple[type, Any]]:
    """Values with their types: ``30 == 30.0`` must not hide an int where typer gives a float."""
    return {key: (type(value), value) for key, value in kwargs.items()}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_spec_is_the_one_typer_declares(name):
    click_command = typer.main.get_command(app).commands[name]
    assert COMMANDS[name].spec == command_spec(click_command)
    assert [p.dest for p in COMMANDS[name].params] == [p.name for p in click_command.params]


REVIEW_LINES = [
    [],
    ["--sync", "--quiet", "--base", "main"],
    ["--base", "main", "--head", "feature", "--focus", "auth code", "--fix-threshold", "P1"],
    ["--diff", "-", "--format", "sarif", "--timeout", "30", "--max-diff-lines", "500"],
    ["--timeout", "2.5", "--pr", "12", "--round", "2", "--max-rounds", "0"],
    ["--channels", "a", "b", "--channels", "c,d", "--staged"],
    ["--channels"],
    ["--channels", "--sync"],
    ["--pr", "5", "--pr", "7"],
    ["--pr", "-3"],
    ["--sync", "--no-sync"],
    ["--no-sync", "--sync"],
    ["--staged", "--no-staged"],
    ["--dryRun", "--compensateMissing", "--trust-project-acks", "--trust-project-config"],
    ["--accept-new-acks", "--session", "s1", "--config-base-ref", "origin/main"],
    ["--focus=inline value", "--template", "security"],
    ["--focus", "caf\u00e9 \udcff"],
]


@pytest.mark.parametrize("line", REVIEW_LINES, ids=lambda line: " ".join(line) or "(none)")
def test_review_values_reach_the_body_as_typer_passes_them(recorded, line):
    via_typer, via_fast = both_routes(["review", *line], recorded)
    assert via_fast[0] == via_typer[0] == "review_command"
    assert typed(via_fast[1]) == typed(via_typer[1])


@pytest.mark.parametrize("args", [
    ["results", "mmr-0123456789ab"],
    ["results", "mmr-0123456789ab", "--format", "markdown", "--raw"],
    ["results", "--raw", "--", "mmr-0123456789ab"],
    ["reconcile", "mmr-0123456789ab", "--channel", "agent", "--input", "-"],
    ["reconcile", "--input", "[]", "--format", "text", "--channel", "x", "mmr-0123456789ab"],
    ["reconcile", "j", "--channel", "a", "--channel", "b", "--input", "f.json"],
])
def test_results_and_reconcile_values_reach_the_body_as_typer_passes_them(recorded, args):
    via_typer, via_fast = both_routes(args, recorded)
    assert via_fast[0] == via_typer[0]
    assert typed(via_fast[1]) == typed(via_typer[1])


@pytest.mark.parametrize("args", [
    ["review", "--help"],
    ["review", "--version"],
    ["review", "--pr", "abc"],
    ["review", "--pr", " 5"],
    ["review", "--pr", "5.0"],
    ["review", "--timeout", "1e3"],
    ["status", "job"],
    ["jobs", "list"],
    [],
])
def test_anything_unsure_takes_the_typer_route(args):
    assert fast_command(args) is None


@pytest.mark.parametrize("args", [
    ["review", "--bogus"],
    ["review", "--format", "xml"],
    ["review", "--diff"],
    ["review", "surplus"],
    ["review", "--sync=yes"],
    ["results"],
    ["results", "a", "b"],
    ["reconcile", "job", "--input", "-"],
])
def test_a_line_the_grammar_rejects_is_refused_as_on_the_typer_route(capsys, args):
    code = run(args)
    typer_route = (code, *capsys.readouterr())
    call = fast_command(args)
    assert call is not None
    fast_route = (run_fast(call, args), *capsys.readouterr())
    assert fast_route == typer_route
    assert fast_route[0] == 1 and fast_route[2].startswith("mmr: error: ")


def run_both(args: list[str], capsys: pytest.CaptureFixture[str],
             monkeypatch: pytest.MonkeyPatch, body: Callable[..., int]) -> tuple[Any, Any]:
    monkeypatch.setattr(bodies, "review_command", body)
    code = run(args)
    typer_route = (code, *capsys.readouterr())
    call = fast_command(args)
    assert call is not None
    code = run_fast(call, args)
    return typer_route, (code, *capsys.readouterr())


def _raises(exc: BaseException) -> Callable[..., int]:
    def body(**_: Any) -> int:
        raise exc
    return body


@pytest.mark.parametrize("exc", [
    UsageError("--round must be >= 1"), KeyboardInterrupt(), EOFError(),
], ids=["usage-error", "ctrl-c", "eof"])
def test_errors_from_the_body_end_as_on_the_typer_route(capsys, monkeypatch, exc):
    typer_route, fast_route = run_both(["review", "--sync"], capsys, monkeypatch, _raises(exc))
    assert fast_route == typer_route
    assert fast_route[0] in (1, 130)


def test_a_usage_error_prints_the_message_then_where_help_is(capsys, monkeypatch):
    _, (code, out, err) = run_both(["review", "--round", "0"], capsys, monkeypatch,
                                   _raises(UsageError("round must be >= 1")))
    assert (code, out) == (1, "")
    assert err == "mmr: error: round must be >= 1\nTry 'mmr review --help'\n"


@pytest.mark.parametrize("result,code", [(3, 3), (None, 0), (True, 0)])
def test_the_body_result_is_the_exit_code_as_on_the_typer_route(capsys, monkeypatch, result,
                                                                 code):
    typer_route, fast_route = run_both(["review"], capsys, monkeypatch, lambda **_: result)
    assert fast_route == typer_route == (code, "", "")


def test_other_errors_reach_the_boundary_unchanged(monkeypatch):
    monkeypatch.setattr(bodies, "review_command", _raises(RuntimeError("boom")))
    call = fast_command(["review"])
    assert call is not None
    with pytest.raises(RuntimeError, match="boom"):
        run_fast(call, ["review"])


def test_the_console_entry_point_takes_the_fast_route_without_typer(tmp_path):
    import subprocess
    import sys

    probe = ("import sys\nfrom mmr.cli import bodies\n"
             "bodies.results_command = lambda **kw: print(sorted(kw.items())) or 0\n"
             "from mmr.cli.main import main\n"
             "code = main(['results', 'mmr-0123456789ab', '--raw'])\n"
             "print(code, 'typer' in sys.modules, 'pydantic' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=60, check=True, cwd=tmp_path)
    assert done.stdout.splitlines() == [
        "[('fmt', None), ('job_id', 'mmr-0123456789ab'), ('no_wait', False), ('raw', True), "
        "('wait_timeout', None)]", "0 False False"]
