"""The synthesis pass: when it runs, when it is skipped, and what it adds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mmr.config.paths import jobs_dir
from mmr.critique.synthesis import parse_synthesis
from tests.builtin_channels import ENABLED_BUILTINS
from tests.fakes.plugin import FakeCli, FakeCliFactory
from tests.integration.critique.conftest import (
    RunMmr,
    claude_envelope,
    critique_reply,
    item,
    write_user_config,
)

#: Every built-in enabled by default except claude, so ``claude`` stays an enabled synthesizer.
OTHERS = [name for name in ENABLED_BUILTINS if name != "claude"]
PUSH = "Move reports to a push model: a work queue fed by change data capture."
POLL = "Keep polling but shard the tables over several cron hosts to spread the load."
SPOF = "A single cron host is a single point of failure for all nightly reports."
SYNTHESIS = {
    "splits": [{
        "theme": "transport",
        "positions": [
            {"stance": "Replace polling with a queue.", "item_ids": ["C-002"], "sources": ["ca"]},
            {"stance": "Keep polling, sharded.", "item_ids": ["C-003", 7], "sources": ["cb"]},
            {"stance": "   ", "item_ids": ["C-001"], "sources": ["ca"]},
        ],
        "crux": "How many tables change each minute?",
    }, {
        "theme": "lonely", "positions": [{"stance": "Only one side.", "item_ids": [],
                                          "sources": []}],
    }],
    "synthesis": "Both models doubt the single host (C-001) but split on transport "
                 "(C-002, C-003).",
}


def _synthesis_calls(claude: FakeCli) -> list[dict[str, Any]]:
    return [c for c in claude.calls() if "# Critique Synthesis" in (c["stdin"] or "")]


@pytest.fixture
def design(tmp_path: Path) -> Path:
    (tmp_path / "design.md").write_text("Poll every table each minute from one cron host.\n")
    return tmp_path


def _channels(fake_cli: FakeCliFactory, *, ca: str | None = None, cb: str | None = None,
              cb_exit: int = 0, **config: Any) -> None:
    fake_cli("ca", stdout=ca or critique_reply(item(SPOF, theme="availability"),
                                               item(PUSH, "alternative", "transport")))
    fake_cli("cb", stdout=cb or critique_reply(item(SPOF + " Really.", theme="availability"),
                                               item(POLL, "alternative", "transport")),
             exit_code=cb_exit)
    channels = {"ca": {"command": "ca"}, "cb": {"command": "cb"}, **config.pop("channels", {})}
    write_user_config(channels, disabled=config.pop("disabled", OTHERS), **config)


def test_synthesis_runs_and_adds_splits_and_prose(design: Path, fake_cli: FakeCliFactory,
                                                  run_mmr: RunMmr) -> None:
    claude = fake_cli("claude", stdout=claude_envelope(SYNTHESIS))
    _channels(fake_cli)
    result = run_mmr("critique", "design.md", "--channels", "ca,cb", "--format", "json",
                     cwd=design)
    assert result.code == 0, result.err
    report = result.json()
    assert report["splits"] == [{
        "theme": "transport",
        "positions": [
            {"stance": "Replace polling with a queue.", "item_ids": ["C-002"], "sources": ["ca"]},
            {"stance": "Keep polling, sharded.", "item_ids": ["C-003"], "sources": ["cb"]},
        ],
        "crux": "How many tables change each minute?",
    }]
    assert report["synthesis"] == SYNTHESIS["synthesis"]
    assert list(report)[-2:] == ["splits", "synthesis"]
    assert "critique-synthesis" not in report["per_channel"]

    calls = _synthesis_calls(claude)
    assert len(calls) == 1
    assert calls[0]["argv"] == [
        "-p", "--output-format", "json", "--setting-sources", "user", "--strict-mcp-config",
        "--tools", "Read,Glob,Grep", "--permission-mode", "dontAsk"]
    prompt = calls[0]["stdin"]
    head, _, block = prompt.partition("\n\n## Reconciled critique items\n```json\n")
    assert "You are not a judge" in head
    sent = json.loads(block.removesuffix("\n```"))
    assert [i["id"] for i in sent] == ["C-001", "C-002", "C-003"]
    assert list(sent[0]) == ["id", "kind", "theme", "observation", "sources", "agreement"]
    job = json.loads((jobs_dir() / report["job_id"] / "job.json").read_text())
    assert "critique-synthesis" in job["channels"]
    status = json.loads((jobs_dir() / report["job_id"] / "channels" /
                         "critique-synthesis.status.json").read_text())
    assert status["status"] == "completed"

    text = run_mmr("critique", "design.md", "--channels", "ca,cb", cwd=design).out
    assert ("DIVERGENCE — models split (your judgment call)\n"
            "  ▲ transport\n"
            "      - Replace polling with a queue. (sources: ca) [C-002]\n"
            "      - Keep polling, sharded. (sources: cb) [C-003]\n"
            "      ↳ crux: How many tables change each minute?\n") in text
    assert text.endswith(
        f"SYNTHESIS\n  {SYNTHESIS['synthesis']}\n"
        "  (3 item(s) across 2 of 2 channel(s) — 1 consensus, 2 single-model)\n")


def test_no_synthesis_flag_skips_it(design: Path, fake_cli: FakeCliFactory,
                                    run_mmr: RunMmr) -> None:
    claude = fake_cli("claude", stdout=claude_envelope(SYNTHESIS))
    _channels(fake_cli)
    result = run_mmr("critique", "design.md", "--channels", "ca,cb", "--no-synthesis",
                     "--format", "json", cwd=design)
    report = result.json()
    assert "synthesis" not in report and "splits" not in report
    assert claude.calls() == []
    text = run_mmr("critique", "design.md", "--channels", "ca,cb", "--no-synthesis",
                   cwd=design).out
    assert text.endswith("SYNTHESIS\n  3 item(s) across 2 of 2 channel(s) — 1 consensus, "
                         "2 single-model\n")
    assert "DIVERGENCE" not in text


@pytest.mark.parametrize("case", ["one item", "one channel completed", "claude not installed",
                                  "claude auth failed", "claude in channels_disabled",
                                  "claude enabled: false", "claude is http"])
def test_synthesis_is_skipped_unless_every_condition_holds(
        design: Path, fake_cli: FakeCliFactory, run_mmr: RunMmr, case: str) -> None:
    claude = fake_cli("claude", stdout=claude_envelope(SYNTHESIS),
                      exit_code=1 if case == "claude auth failed" else 0)
    options: dict[str, Any] = {}
    if case == "one item":
        options.update(ca=critique_reply(item(SPOF)), cb=critique_reply(summary="Looks sound."))
    elif case == "one channel completed":
        options["cb_exit"] = 4
    elif case == "claude not installed":
        options["channels"] = {"claude": {"command": "no-such-claude"}}
    elif case == "claude in channels_disabled":
        options["disabled"] = [*OTHERS, "claude"]
    elif case == "claude enabled: false":
        options["channels"] = {"claude": {"enabled": False}}
    elif case == "claude is http":
        options["channels"] = {"claude": {"kind": "http", "endpoint": "http://127.0.0.1:9/v1/chat/completions",
                                          "model": "m", "endpoint_convention": "openai-chat"}}
    _channels(fake_cli, **options)
    result = run_mmr("critique", "design.md", "--channels", "ca,cb", "--format", "json",
                     cwd=design)
    assert result.code == 0, result.err
    report = result.json()
    assert "synthesis" not in report and "splits" not in report
    assert _synthesis_calls(claude) == []
    job = json.loads((jobs_dir() / report["job_id"] / "job.json").read_text())
    assert "critique-synthesis" not in job["channels"]


@pytest.mark.parametrize("reply", [
    {"type": "result", "is_error": False, "result": "I cannot summarise this."},
    {"type": "result", "is_error": True, "result": "API Error: 529 overloaded"},
    claude_envelope({"splits": "none", "synthesis": "   "}),
])
def test_an_unusable_synthesis_reply_leaves_the_critique_intact(
        design: Path, fake_cli: FakeCliFactory, run_mmr: RunMmr, reply: dict[str, Any]) -> None:
    claude = fake_cli("claude", stdout=reply)
    _channels(fake_cli)
    result = run_mmr("critique", "design.md", "--channels", "ca,cb", "--format", "json",
                     cwd=design)
    assert result.code == 0
    report = result.json()
    assert len(_synthesis_calls(claude)) == 1
    assert "synthesis" not in report and "splits" not in report
    assert len(report["items"]) == 3


def test_a_failing_synthesizer_is_recorded_on_the_job(design: Path, fake_cli: FakeCliFactory,
                                                      run_mmr: RunMmr) -> None:
    fake_cli("claude", stdout="", stderr="boom", exit_code=2)
    _channels(fake_cli, channels={"claude": {"auth": {
        "check": "true", "failure_exit_codes": [1], "recovery": "claude login"}}})
    result = run_mmr("critique", "design.md", "--channels", "ca,cb", "--format", "json",
                     cwd=design)
    assert result.code == 0
    status = json.loads((jobs_dir() / result.json()["job_id"] / "channels" /
                         "critique-synthesis.status.json").read_text())
    assert status["status"] == "failed"


def test_synthesis_parsing_rules() -> None:
    parsed = parse_synthesis(json.dumps(SYNTHESIS))
    assert [len(s.positions) for s in parsed.splits] == [2]
    assert parsed.splits[0].positions[1].item_ids == ["C-003"]
    untitled = parse_synthesis(json.dumps({"splits": [{"positions": [
        {"stance": "a"}, {"stance": "b", "sources": "ca"}]}], "synthesis": " x "}))
    assert untitled.splits[0].theme == "general" and untitled.splits[0].crux == ""
    assert untitled.splits[0].positions[1].sources == []
    assert untitled.synthesis == "x"
    assert parse_synthesis("no json here").splits == ()
    assert parse_synthesis(None).synthesis is None
