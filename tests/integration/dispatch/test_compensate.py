"""Compensation: planning, the compensator, focus, availability, dispatch."""

from __future__ import annotations

import json
import textwrap
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from mmr.config.defaults import builtin_layer
from mmr.config.loaded import LoadedConfig, WorkingTree
from mmr.config.loader import load_config
from mmr.dispatch.findings_schema import FINDINGS_SCHEMA_JSON
from mmr.dispatch.plan import ChannelOutcome
from mmr.models import ChannelStatus
from mmr.prompt.focus import focus_preamble
from mmr.review.compensate import (
    CompensationPass,
    compensator_for,
    plan_compensation,
    run_compensation,
)
from tests.fakes.plugin import FakeCli, FakeCliFactory
from tests.integration.dispatch.dispatch_helpers import (
    CLEAN_REPLY,
    FINDING_REPLY,
    Job,
    channel,
    new_job,
    plan,
)

CLAUDE_ENVELOPE = {"type": "result", "is_error": False, "result": json.dumps(FINDING_REPLY)}
BASE_PROMPT = "BASE REVIEW PROMPT\n```diff\n+x\n```"

#: The compensator reads its parser from the built-in claude preset.
CLAUDE_PARSER = builtin_layer()["channels"]["claude"]["output_parser"]


def load(tmp_path: Path, project: str = "", cli: dict[str, Any] | None = None) -> LoadedConfig:
    root = tmp_path / "project"
    root.mkdir(exist_ok=True)
    (root / ".mmr.yaml").write_text(textwrap.dedent(project) or "version: 1\n")
    return load_config(root, project_source=WorkingTree(), cli_overrides=cli,
                       on_warning=lambda _: None)


def compensate(job: Job, passes: list[CompensationPass], config: LoadedConfig, *,
               parallel: bool = True) -> tuple[dict[str, ChannelOutcome], list[str]]:
    ctx = job.context(parallel=parallel)
    return anyio.run(lambda: run_compensation(passes, base_prompt=BASE_PROMPT, config=config,
                                              ctx=ctx))


def dispatch_calls(fake: FakeCli) -> list[dict[str, Any]]:
    """The fake's review invocations (the availability check runs it too)."""
    return [call for call in fake.calls()
            if "respond with ok" not in call["argv"] and call["argv"][:2] != ["auth", "status"]]


# --- planning (pure) --------------------------------------------------------------------

def test_transient_statuses_are_compensated_and_others_not(tmp_path: Path) -> None:
    config = load(tmp_path)
    statuses: dict[str, ChannelStatus] = {
        "codex": "failed", "grok": "timeout", "agy": "auth_failed", "opencode": "skipped",
        "done": "completed", "claude": "failed", "absent": "not_installed",
        "compensating-x": "failed",
    }

    passes = plan_compensation(statuses, config, compensate_missing=False, required={})

    assert passes == [CompensationPass("codex", "compensating-codex"),
                      CompensationPass("grok", "compensating-grok"),
                      CompensationPass("agy", "compensating-agy"),
                      CompensationPass("opencode", "compensating-opencode")]
    assert passes.not_compensated == ("absent",)


def test_not_installed_needs_compensate_missing_or_required(tmp_path: Path) -> None:
    config = load(tmp_path)
    statuses: dict[str, ChannelStatus] = {"a": "not_installed", "b": "not_installed"}

    flagged = plan_compensation(statuses, config, compensate_missing=True, required={})
    required = plan_compensation(statuses, config, compensate_missing=False,
                                 required={"b": True, "a": False})

    assert [p.original for p in flagged] == ["a", "b"] and flagged.not_compensated == ()
    assert [p.original for p in required] == ["b"] and required.not_compensated == ("a",)


def test_configured_compensator_is_never_compensated(tmp_path: Path) -> None:
    config = load(tmp_path, "defaults:\n  compensator: {channel: codex}\n")
    passes = plan_compensation({"codex": "failed", "claude": "failed"}, config,
                               compensate_missing=False, required={})
    assert [p.original for p in passes] == ["claude"]


def test_content_skips_are_never_compensated(tmp_path: Path) -> None:
    config = load(tmp_path)
    statuses: dict[str, ChannelStatus] = {"a": "skipped", "b": "skipped", "c": "skipped"}
    passes = plan_compensation(statuses, config, compensate_missing=False, required={},
                               reasons={"a": "credential_refused", "b": "diff_too_large",
                                        "c": None})
    assert [p.original for p in passes] == ["c"]


def test_focus_preamble() -> None:
    codex = focus_preamble("codex")
    agy = focus_preamble("antigravity")
    opencode = focus_preamble("opencode")
    assert "implementation correctness" in codex and "security" in codex and "Codex" in codex
    for word in ("architectural patterns", "broad-context reasoning", "Antigravity"):
        assert word in agy
    assert "correctness" in opencode and "OpenCode" in opencode
    assert "Grok" in focus_preamble("grok")
    generic = focus_preamble("doc-conformance")
    assert generic.count("doc-conformance") == 2
    assert focus_preamble("codex", {"codex": "  look at auth  "}) == "  look at auth  "
    assert focus_preamble("codex", {"codex": "   "}) == codex


def test_default_compensator(tmp_path: Path) -> None:
    compensator = compensator_for(load(tmp_path, "defaults: {timeout: 42}\n"))

    assert compensator.name == "claude" and not compensator.configured
    assert compensator.channel.command == "claude -p"
    assert compensator.channel.flags == [
        "--output-format", "json", "--setting-sources", "user", "--strict-mcp-config"]
    assert compensator.timeout_s == 42
    assert compensator.output_parser.model_dump(exclude_none=True) == CLAUDE_PARSER  # type: ignore[union-attr]
    assert compensator.channel.prompt_delivery is None  # stdin


def test_cli_timeout_wins_for_compensators(tmp_path: Path) -> None:
    config = load(tmp_path, """\
        defaults: {compensator: {channel: slowpoke}}
        channels:
          slowpoke: {command: "slowpoke", timeout: 600}
        """, cli={"timeout": 9})
    assert compensator_for(config).timeout_s == 9
    assert compensator_for(load(tmp_path, cli={"timeout": 9})).timeout_s == 9


# --- running passes ---------------------------------------------------------------------

def test_failed_timed_out_and_unparseable_channels_get_passes(fake_cli: FakeCliFactory,
                                                               tmp_path: Path) -> None:
    fake_cli("codex", exit_code=1, stderr="codex crashed")
    fake_cli("grok", stdout=CLEAN_REPLY, sleep=30)
    fake_cli("mm", stdout="I reviewed it and it is fine.")
    fake_cli("good", stdout=CLEAN_REPLY)
    claude = fake_cli("claude", stdout=CLAUDE_ENVELOPE)
    names = ["codex", "grok", "mm", "good"]
    job = new_job(tmp_path, names)
    config = load(tmp_path, """\
        defaults:
          compensator:
            channel_focus_map: {mm: "MM FOCUS: check the numbers."}
        """)

    primary = job.dispatch([plan("codex", channel("codex")),
                            plan("grok", channel("grok"), timeout_s=0.5),
                            plan("mm", channel("mm")), plan("good", channel("good"))])
    statuses = {name: outcome.status for name, outcome in primary.items()}
    passes = plan_compensation(statuses, config, compensate_missing=False, required={})
    outcomes, notices = compensate(job, passes, config)

    assert statuses == {"codex": "failed", "grok": "timeout", "mm": "failed",
                        "good": "completed"}
    assert list(outcomes) == ["compensating-codex", "compensating-grok", "compensating-mm"]
    assert notices == []
    for name, outcome in outcomes.items():
        assert outcome.status == "completed", name
        assert outcome.parsed is not None and outcome.parsed.findings[0].severity == "P1"
        entry = job.entry(name)
        assert entry["compensator"] == "claude"
        assert entry["output_parser"] == CLAUDE_PARSER
        assert entry["status"] == "completed"
    calls = dispatch_calls(claude)
    assert len(calls) == 3
    argv = ["-p", "--output-format", "json", "--setting-sources", "user", "--strict-mcp-config"]
    assert all(call["argv"] == argv for call in calls)
    prompts = sorted(call["stdin"] for call in calls)
    assert any(p.startswith("MM FOCUS: check the numbers.\n\n") for p in prompts)
    assert any(p.startswith(focus_preamble("codex") + "\n\n") for p in prompts)
    assert any(p.startswith(focus_preamble("grok") + "\n\n") for p in prompts)
    assert all(p.endswith("\n\n" + BASE_PROMPT) for p in prompts)
    job_json = json.loads(job.store.paths(job.job_id).job_json.read_text())
    assert job_json["channels"]["compensating-mm"]["compensator"] == "claude"


def test_passes_run_concurrently_even_when_sequential(fake_cli: FakeCliFactory,
                                                      tmp_path: Path) -> None:
    fake_cli("claude", stdout=CLAUDE_ENVELOPE, sleep=0.6)
    job = new_job(tmp_path, ["a", "b", "c"])
    config = load(tmp_path)
    passes = plan_compensation({"a": "failed", "b": "failed", "c": "timeout"}, config,
                               compensate_missing=False, required={})
    started = time.monotonic()

    outcomes, _ = compensate(job, passes, config, parallel=False)

    # The availability check's own 0.6 s run, then three overlapping 0.6 s passes
    # (one after another they would take 2.4 s).
    assert time.monotonic() - started < 2.0
    assert [o.status for o in outcomes.values()] == ["completed"] * 3


def test_configured_compensator_uses_its_own_channel(fake_cli: FakeCliFactory,
                                                     tmp_path: Path) -> None:
    comp = fake_cli("compx", stdout=CLEAN_REPLY, read_prompt_file="flag")
    job = new_job(tmp_path, ["codex"])
    config = load(tmp_path, """\
        defaults:
          compensator: {channel: compx, channel_focus_map: {codex: "FOCUS"}}
        channels:
          compx:
            command: "compx review"
            enabled: false
            prompt_delivery: prompt-file
            prompt_wrapper: "SYSTEM\\n{{prompt}}\\nEND"
            flags: ["--prompt-file", "{{prompt_file}}", "--schema={{findings_schema}}"]
            env: {COMPX_MODE: strict}
            auth: {check: "true", failure_exit_codes: [1], recovery: "compx login"}
        """)
    passes = plan_compensation({"codex": "failed"}, config, compensate_missing=False,
                               required={})

    outcomes, _ = compensate(job, passes, config)

    assert outcomes["compensating-codex"].status == "completed"
    call = comp.last_call()
    prompt_file = job.file("compensating-codex", ".prompt.txt")
    assert call["argv"] == ["review", "--prompt-file", str(prompt_file.absolute()),
                            f"--schema={FINDINGS_SCHEMA_JSON}"]
    assert call["prompt_file_text"] == f"SYSTEM\nFOCUS\n\n{BASE_PROMPT}\nEND"
    assert call["env"]["COMPX_MODE"] == "strict"
    entry = job.entry("compensating-codex")
    assert entry["compensator"] == "compx"
    assert entry["output_parser"] == "default-last"  # schema flag coerces default


def test_unavailable_compensator_records_entries_and_runs_nothing(fake_cli: FakeCliFactory,
                                                                  tmp_path: Path) -> None:
    comp = fake_cli("compx", stdout=CLEAN_REPLY)
    job = new_job(tmp_path, ["codex", "grok"])
    config = load(tmp_path, """\
        defaults: {compensator: {channel: compx}}
        channels:
          compx:
            command: compx
            auth: {check: "exit 1", failure_exit_codes: [1], recovery: "compx login"}
        """)
    passes = plan_compensation({"codex": "failed", "grok": "timeout"}, config,
                               compensate_missing=False, required={})

    outcomes, notices = compensate(job, passes, config)

    assert comp.calls() == []
    assert [o.status for o in outcomes.values()] == ["auth_failed", "auth_failed"]
    for name in ("compensating-codex", "compensating-grok"):
        entry = job.entry(name)
        assert entry == {"status": "auth_failed", "auth": "failed", "recovery": "compx login",
                         "output_parser": "default", "compensator": "compx"}
    assert len(notices) == 1 and "compx is unavailable (failed: compx login)" in notices[0]


def test_missing_default_claude_gives_a_notice_and_no_entries(tmp_path: Path) -> None:
    job = new_job(tmp_path, ["codex"])
    config = load(tmp_path)
    passes = plan_compensation({"codex": "failed"}, config, compensate_missing=False,
                               required={})

    outcomes, notices = compensate(job, passes, config)

    assert outcomes == {}
    assert "compensating-codex" not in job.store.load(job.job_id).channels
    assert notices == ["[mmr] no compensating pass for codex: the compensator claude is not "
                       "installed; install it, or pick one that runs: `mmr config set "
                       "defaults.compensator.channel <channel>`"]


def test_not_installed_notice_and_compensate_missing(fake_cli: FakeCliFactory,
                                                     tmp_path: Path) -> None:
    claude = fake_cli("claude", stdout=CLAUDE_ENVELOPE)
    job = new_job(tmp_path, ["agy", "opencode"])
    config = load(tmp_path)
    statuses: dict[str, ChannelStatus] = {"agy": "not_installed", "opencode": "not_installed"}

    quiet_passes = plan_compensation(statuses, config, compensate_missing=False, required={})
    outcomes, notices = compensate(job, quiet_passes, config)
    assert outcomes == {} and dispatch_calls(claude) == []
    assert len(notices) == 1
    assert notices[0].startswith(
        "[mmr] not compensating structurally-absent channel(s): agy, opencode. ")
    assert "--compensate-missing" in notices[0] and "required: true" in notices[0]

    passes = plan_compensation(statuses, config, compensate_missing=True, required={})
    outcomes, notices = compensate(job, passes, config)
    assert notices == []
    assert [o.status for o in outcomes.values()] == ["completed", "completed"]
    assert len(dispatch_calls(claude)) == 2


def test_required_channel_is_compensated(fake_cli: FakeCliFactory, tmp_path: Path) -> None:
    fake_cli("claude", stdout=CLAUDE_ENVELOPE)
    job = new_job(tmp_path, ["agy"])
    config = load(tmp_path, "channels:\n  antigravity: {required: true}\n")
    antigravity = config.channel("antigravity")
    assert antigravity is not None
    required = {"agy": bool(antigravity.required)}

    passes = plan_compensation({"agy": "not_installed"}, config, compensate_missing=False,
                               required=required)
    outcomes, notices = compensate(job, passes, config)

    assert list(outcomes) == ["compensating-agy"] and notices == []
    assert outcomes["compensating-agy"].status == "completed"


@pytest.mark.parametrize("reply", ["not json at all", json.dumps({"is_error": True,
                                                                  "result": "overloaded"})])
def test_unparseable_compensating_pass_is_a_parse_error(fake_cli: FakeCliFactory,
                                                        tmp_path: Path, reply: str) -> None:
    fake_cli("claude", stdout=reply)
    job = new_job(tmp_path, ["codex"])
    config = load(tmp_path)
    passes = plan_compensation({"codex": "failed"}, config, compensate_missing=False,
                               required={})

    outcomes, _ = compensate(job, passes, config)

    outcome = outcomes["compensating-codex"]
    assert outcome.status == "failed" and outcome.reason == "parse_error"
    assert job.entry("compensating-codex")["reason"] == "parse_error"
