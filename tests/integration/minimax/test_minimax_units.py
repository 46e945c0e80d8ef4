"""The pure pieces behind ``mmr explore`` and the wrappers, tested directly."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mmr.config.channel_schema import SubprocessChannel
from mmr.config.wrapper import PROMPT_TOKEN, resolve_prompt_wrapper
from mmr.dispatch.plan import AuthResult, ChannelOutcome, ChannelPlan
from mmr.errors import UsageError
from mmr.explore.inputs import check_effort, explore_prompt, in_secrets_dir
from mmr.explore.report import render_json, summarise
from mmr.explore.run import ExploreRequest, vars_overrides
from mmr.explore.scratch import (
    ScratchRun,
    context_window_warning,
    preview_argv,
    reply_text,
    telemetry_line,
    with_vars,
)
from mmr.models import Telemetry
from mmr.wrappers.fake_session import fake_reply
from mmr.wrappers.review_inputs import Worktree, branch_slug, default_out
from mmr.wrappers.review_report import envelope_failed, exit_code_for

UNWRAP_ANSWER: dict[str, Any] = {
    "kind": "unwrap-jsonpath", "wrap": "$.result", "error_path": "$.is_error",
    "then": {"kind": "answer"},
}
UNWRAP_MARKDOWN: dict[str, Any] = {**UNWRAP_ANSWER, "then": {"kind": "markdown-findings"}}


def channel(**fields: Any) -> SubprocessChannel:
    return SubprocessChannel.model_validate({"command": "ask-minimax-run", **fields})


def raw(result: object, *, is_error: bool = False) -> str:
    return json.dumps({"is_error": is_error, "result": result})


@pytest.mark.parametrize("template", ["minimax-review.md", "minimax-explore.md"])
def test_wrapper_templates_resolve_and_hold_the_prompt_once(template: str) -> None:
    text = resolve_prompt_wrapper("{{template:" + template + "}}")
    assert text.count(PROMPT_TOKEN) == 1


def test_effort_levels() -> None:
    assert [check_effort(e) for e in ("low", "medium", "high", "xhigh", "max", None)] == [
        "low", "medium", "high", "xhigh", "max", None]
    with pytest.raises(UsageError, match="low\\|medium"):
        check_effort("MAX")


@pytest.mark.parametrize(("path", "secret"), [
    ("/r/secrets", True), ("/r/local_secrets/x", True), ("/r/my_secrets", False),
    ("/r/src/secrets.py", False),
])
def test_in_secrets_dir(path: str, secret: bool) -> None:
    assert in_secrets_dir(Path(path)) is secret


def test_explore_prompt_orders_roots_breadth_question() -> None:
    text = explore_prompt([Path("/a"), Path("/b")], "medium", "Where?")
    assert text.startswith("## Search roots\n- /a\n- /b\n\n## Breadth\nmedium:")
    assert text.endswith("## Question\nWhere?")


def test_vars_overrides_for_m3_effort_and_turns() -> None:
    assert vars_overrides(ExploreRequest(roots=())) == {}
    assert vars_overrides(ExploreRequest(roots=(), m3=True)) == {"model": "MiniMax-M3",
                                                                 "effort": None}
    assert vars_overrides(ExploreRequest(roots=(), m3=True, effort="low", max_turns=3)) == {
        "model": "MiniMax-M3", "effort": "low", "max_turns": 3}


def test_with_vars_drops_a_null_effort_flag_pair() -> None:
    base = channel(flags=["--model", "{{var.model}}", "--effort", "{{var.effort}}", "-p"],
                   vars={"model": "Flash", "effort": "max"})
    changed = with_vars(base, {"model": "M3", "effort": None})
    assert preview_argv("x", changed, repo_root=Path("/r")) == [
        "ask-minimax-run", "--model", "M3", "-p"]
    assert base.vars == {"model": "Flash", "effort": "max"}  # the loaded config is untouched


def test_reply_text_unwraps_without_the_gate() -> None:
    assert reply_text(raw("no citation"), UNWRAP_ANSWER) == "no citation"
    assert reply_text("not json at all", UNWRAP_ANSWER) is None
    assert reply_text(None, UNWRAP_ANSWER) is None


def test_telemetry_line_and_window_warning() -> None:
    figures = Telemetry(input_tokens=1500, output_tokens=20, context_window=200_000,
                        cost_usd=0.5, turns=3)
    assert telemetry_line("[mmr]", "mx", figures, 2.04) == (
        "[mmr] mx: tokens in 1,500 · out 20 · context 200,000 · cost $0.5000 · turns 3 · 2.0s")
    assert telemetry_line("[mmr]", "mx", None, 1) == "[mmr] mx: 1.0s"
    assert "200,000-token context window" in (context_window_warning("p", "mx", figures) or "")
    assert context_window_warning("p", "mx", Telemetry(context_window=1_000_000)) is None
    assert context_window_warning("p", "mx", None) is None


def test_branch_slug_and_default_out() -> None:
    assert branch_slug("feature/login page") == "feature-login-page"
    assert branch_slug("///") == "head"
    tree = Worktree(Path("/w"), "agent/fix-1", "main", "shop")
    assert default_out(tree, {}) == Path("/tmp/review-minimax/shop/agent-fix-1-findings.md")
    assert default_out(tree, {"XDG_RUNTIME_DIR": ""}).parts[1] == "tmp"
    assert default_out(tree, {"XDG_RUNTIME_DIR": "/run/user/7"}) == Path(
        "/run/user/7/review-minimax/shop/agent-fix-1-findings.md")


def outcome(status: str, reason: str | None = None) -> ChannelOutcome:
    return ChannelOutcome("minimax", status, 1.0, 2, reason)  # type: ignore[arg-type]


@pytest.mark.parametrize(("status", "reason", "reply", "code"), [
    ("completed", None, raw("NO FINDINGS"), 0),
    ("timeout", None, None, 2),
    ("failed", None, None, 2),
    ("failed", "dirtied_worktree", raw("NO FINDINGS"), 2),
    ("failed", "parse_error", raw("boom", is_error=True), 2),
    ("failed", "parse_error", "garbage", 2),
    ("failed", "parse_error", raw("I wrote the file."), 3),
    ("failed", "parse_error", json.dumps({"is_error": False}), 3),
    ("failed", "gate_failed", raw("### [NIT] x\nnowhere.py:1"), 3),
])
def test_exit_code_table(status: str, reason: str | None, reply: str | None, code: int) -> None:
    assert exit_code_for(outcome(status, reason), reply, UNWRAP_MARKDOWN) == code


def test_envelope_failed_without_an_error_path() -> None:
    assert envelope_failed(raw("x"), "default") is False
    assert envelope_failed(None, "default") is True


def test_fake_reply_replaces_result_with_the_findings(tmp_path: Path) -> None:
    envelope = tmp_path / "e.json"
    envelope.write_text(json.dumps({"is_error": False, "result": "done", "num_turns": 2}))
    findings = tmp_path / "f.md"
    findings.write_text("NO FINDINGS\n")
    assert json.loads(fake_reply(envelope, findings)) == {
        "is_error": False, "result": "NO FINDINGS\n", "num_turns": 2}
    assert fake_reply(envelope, None) == envelope.read_text()
    envelope.write_text("not json")
    assert fake_reply(envelope, findings) == "not json"


def plan(name: str) -> ChannelPlan:
    return ChannelPlan(name, channel(), "prompt", 10, UNWRAP_ANSWER)  # type: ignore[arg-type]


def test_summarise_picks_the_first_passing_channel_and_reports_the_rest() -> None:
    names = ["a", "b", "c", "d"]
    run = ScratchRun(
        outcomes={"a": outcome("failed", "gate_failed"), "b": outcome("completed"),
                  "c": outcome("completed")},
        raw={"a": raw("no cite"), "b": raw("x.py:1"), "c": raw("y.py:2")},
    )
    not_run = {"d": ("not_installed", AuthResult("not_installed", recovery="install d"))}
    report = summarise(names, [plan(n) for n in names], run, not_run,  # type: ignore[arg-type]
                       [Path("/r")])
    assert (report.status, report.channel, report.answer, report.exit_code) == (
        "answered", "b", "x.py:1", 0)
    document = json.loads(render_json(report))
    assert document["channels"] == {
        "a": {"status": "failed", "reason": "gate_failed", "attempts": 2},
        "b": {"status": "completed", "attempts": 2},
        "c": {"status": "completed", "attempts": 2},
        "d": {"status": "not_installed"},
    }


@pytest.mark.parametrize(("outcomes", "status", "code"), [
    ({"a": ("failed", "gate_failed"), "b": ("timeout", None)}, "uncited", 3),
    ({"a": ("failed", None), "b": ("timeout", None)}, "failed", 2),
])
def test_summarise_without_an_answer(outcomes: dict[str, tuple[str, str | None]],
                                     status: str, code: int) -> None:
    run = ScratchRun({n: outcome(*o) for n, o in outcomes.items()},
                     {"a": raw("no cite"), "b": None})
    report = summarise(["a", "b"], [plan("a"), plan("b")], run, {}, [Path("/r")])
    assert (report.status, report.exit_code) == (status, code)
    assert report.answer == ("no cite" if status == "uncited" else None)
