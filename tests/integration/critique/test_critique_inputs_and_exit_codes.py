"""Input forms, the exit-code rule, dry-run and channel flags.

The rule under test: once the input resolved (and config and channels did), critique
exits 0 whatever the channels do; a missing, unreadable or empty input exits 1.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes.plugin import FakeCliFactory
from tests.integration.critique.conftest import (
    DESIGN,
    RunMmr,
    critique_reply,
    item,
    job_ids,
    write_user_config,
)

NO_INPUT = "No input given. Pass a file path (mmr critique design.md) or - to read stdin."


@pytest.fixture
def two_channels(fake_cli: FakeCliFactory) -> FakeCliFactory:
    fake_cli("ca", stdout=critique_reply(item("Polling every table each minute will not scale "
                                              "past a few hundred tables.")))
    fake_cli("cb", stdout=critique_reply(item("A single cron host is a single point of "
                                              "failure for every report.", theme="availability")))
    write_user_config({"ca": {"command": "ca"}, "cb": {"command": "cb"}})
    return fake_cli


def _artifact_section(prompt: str) -> str:
    head, _, artifact = prompt.rpartition("## Artifact to critique\n")
    assert head, "the artifact layer is missing"
    return artifact


# --- the three input forms ---------------------------------------------------------------

def test_a_file_is_critiqued_and_named_as_typed(project: Path, two_channels: FakeCliFactory,
                                                run_mmr: RunMmr) -> None:
    result = run_mmr("critique", "./design.md", "--format", "json", cwd=project)
    assert result.code == 0, result.err
    report = result.json()
    assert report["kind"] == "design-critique"
    assert report["artifact_source"] == "./design.md"
    assert report["job_id"] in job_ids()
    sent = _fake_prompt(two_channels, "ca")
    assert "This is a design critique, not a code review." in sent
    # The artifact is the last layer, inside a fence, verbatim.
    assert _artifact_section(sent) == f"```\n{DESIGN}\n```"


def _fake_prompt(factory: FakeCliFactory, name: str) -> str:
    import json

    record = factory.records_dir / f"{name}.jsonl"
    lines = [json.loads(line) for line in record.read_text().splitlines() if line]
    assert lines, f"{name} was never run"
    stdin = lines[-1]["stdin"]
    assert isinstance(stdin, str)
    return stdin


def test_stdin_is_read_with_a_dash(project: Path, two_channels: FakeCliFactory,
                                   run_mmr: RunMmr) -> None:
    text = "Problem: deploys are slow.\nProposal: cache the docker layers on every runner.\n"
    result = run_mmr("critique", "-", "--format", "json", cwd=project, stdin=text)
    assert result.code == 0, result.err
    assert result.json()["artifact_source"] == "stdin"
    assert _artifact_section(_fake_prompt(two_channels, "cb")) == f"```\n{text}\n```"


def test_inline_text_is_critiqued_with_the_text_flag(project: Path, two_channels: FakeCliFactory,
                                                     run_mmr: RunMmr) -> None:
    text = "Problem: flaky tests. Proposal: retry every test three times."
    result = run_mmr("critique", "--text", text, "--format", "json", cwd=project)
    assert result.code == 0, result.err
    assert result.json()["artifact_source"] == "inline"
    assert _artifact_section(_fake_prompt(two_channels, "ca")) == f"```\n{text}\n```"


def test_an_artifact_holding_a_fence_gets_a_longer_one(project: Path,
                                                       two_channels: FakeCliFactory,
                                                       run_mmr: RunMmr) -> None:
    (project / "fenced.md").write_text("Example:\n````\ncode\n````\nend\n")
    assert run_mmr("critique", "fenced.md", cwd=project).code == 0
    section = _artifact_section(_fake_prompt(two_channels, "ca"))
    assert section.startswith("`````\nExample:") and section.endswith("end\n\n`````")


# --- inputs that exit 1 --------------------------------------------------------------------

def test_no_input_exits_1_with_the_reference_message(project: Path, two_channels: FakeCliFactory,
                                                     run_mmr: RunMmr) -> None:
    result = run_mmr("critique", cwd=project)
    assert result.code == 1
    assert NO_INPUT in result.err
    assert result.out == ""
    assert job_ids() == []


@pytest.mark.parametrize(("name", "code"), [("missing.md", "ENOENT"),
                                            ("design.md/inner.md", "ENOTDIR"),
                                            ("docs", "EISDIR")])
def test_an_unreadable_input_exits_1_naming_it(project: Path, two_channels: FakeCliFactory,
                                               run_mmr: RunMmr, name: str, code: str) -> None:
    (project / "docs").mkdir()
    result = run_mmr("critique", name, cwd=project)
    assert result.code == 1
    assert f"{code}: " in result.err and f"open '{name}'" in result.err
    assert "Traceback" not in result.err
    assert job_ids() == []
    assert not (two_channels.records_dir / "ca.jsonl").exists()


def test_a_string_that_is_not_a_file_is_not_taken_as_text(project: Path,
                                                          two_channels: FakeCliFactory,
                                                          run_mmr: RunMmr) -> None:
    result = run_mmr("critique", "Use a queue instead of polling", cwd=project)
    assert result.code == 1
    assert "ENOENT" in result.err and "--text" in result.err


@pytest.mark.parametrize(("args", "stdin", "label"), [
    (("empty.md",), None, "empty.md"),
    (("-",), "  \n\t\n", "stdin"),
    (("--text", "   "), None, "inline"),
])
def test_empty_input_exits_1(project: Path, two_channels: FakeCliFactory, run_mmr: RunMmr, *,
                             args: tuple[str, ...], stdin: str | None, label: str) -> None:
    (project / "empty.md").write_text(" \n\n")
    result = run_mmr("critique", *args, cwd=project, stdin=stdin)
    assert result.code == 1
    assert f"Critique input is empty: {label}" in result.err


@pytest.mark.parametrize("args", [
    ("design.md", "other.md"),
    ("design.md", "--text", "also this"),
    ("design.md", "--format", "markdown"),
    ("design.md", "--context", "all"),
    ("design.md", "--timeout", "0"),
    ("design.md", "--session", "../../etc"),
    ("design.md", "--session", "con"),
    ("design.md", "--channels", "nope"),
    ("design.md", "--bogus"),
])
def test_usage_problems_exit_1(project: Path, two_channels: FakeCliFactory, run_mmr: RunMmr,
                               args: tuple[str, ...]) -> None:
    result = run_mmr("critique", *args, cwd=project)
    assert result.code == 1, result.out
    assert job_ids() == []


def test_channels_is_greedy_so_the_input_goes_first(project: Path, two_channels: FakeCliFactory,
                                                    run_mmr: RunMmr) -> None:
    """D11 parity: ``--channels ca design.md`` reads design.md as a channel name."""
    result = run_mmr("critique", "--channels", "ca", "design.md", cwd=project)
    assert result.code == 1
    assert NO_INPUT in result.err
    lensed = run_mmr("critique", "--lenses", "skeptic", "design.md", "--dry-run", cwd=project)
    assert lensed.code == 0 and "Artifact: design.md" in lensed.out


# --- exit 0 whatever the channels do -------------------------------------------------------

def test_exit_0_when_every_channel_fails_or_talks_nonsense(project: Path, fake_cli: FakeCliFactory,
                                                           run_mmr: RunMmr) -> None:
    fake_cli("crash", stdout="partial", exit_code=3)
    fake_cli("prose", stdout="I think the design is fine, honestly.")
    fake_cli("slow", stdout=critique_reply(item("late")), sleep=5)
    write_user_config({"crash": {"command": "crash"}, "prose": {"command": "prose"},
                       "slow": {"command": "slow", "timeout": 0.5},
                       "ghost": {"command": "no-such-cli-anywhere"}})
    result = run_mmr("critique", "design.md", "--format", "json", cwd=project)
    assert result.code == 0, result.err
    report = result.json()
    channels = report["per_channel"]
    assert channels["crash"]["status"] == "failed"
    assert channels["prose"] == {"status": "completed", "item_count": 0,
                                 "summary": "Failed to parse critique output: no items found"}
    assert channels["slow"]["status"] == "timeout"
    assert channels["ghost"] == {"status": "not_installed", "item_count": 0,
                                 "recovery": "no-such-cli-anywhere not found on PATH"}
    assert report["items"] == []
    assert report["metadata"]["channels_dispatched"] == 3
    assert report["metadata"]["channels_completed"] == 1
    assert report["summary"] == ("0 item(s) across 1 of 3 channel(s) — 0 consensus, "
                                 "0 single-model")


def test_nothing_passing_the_preflight_prints_an_empty_report(project: Path,
                                                              fake_cli: FakeCliFactory,
                                                              run_mmr: RunMmr) -> None:
    fake_cli("gatekeeper", exit_code=1)
    write_user_config({
        "ghost": {"command": "no-such-cli-anywhere"},
        "locked": {"command": "gatekeeper", "auth": {
            "check": "gatekeeper", "failure_exit_codes": [1], "recovery": "gatekeeper login"}},
    })
    result = run_mmr("critique", "design.md", "--format", "json", "--lenses", "skeptic",
                     "--session", "s1", cwd=project)
    assert result.code == 0
    assert "No channels passed auth — emitting an empty critique. Run `mmr doctor`." in result.err
    assert result.json() == {
        "kind": "design-critique", "job_id": "none", "artifact_source": "design.md",
        "items": [],
        "per_channel": {
            "ghost": {"status": "not_installed", "item_count": 0,
                      "recovery": "no-such-cli-anywhere not found on PATH"},
            "locked": {"status": "auth_failed", "item_count": 0, "recovery": "gatekeeper login"},
        },
        "summary": "No channels were available to run the critique — check `mmr doctor`.",
        "metadata": {"channels_dispatched": 0, "channels_completed": 0, "total_elapsed": "0s"},
    }
    assert job_ids() == []


def test_an_explicit_empty_channel_list_is_an_empty_report(project: Path,
                                                           two_channels: FakeCliFactory,
                                                           run_mmr: RunMmr) -> None:
    result = run_mmr("critique", "design.md", "--channels", "", cwd=project)
    assert result.code == 0
    assert "CHANNELS" in result.out and "No critique items were returned." in result.out
    assert job_ids() == []


# --- dry run and what each channel is sent -------------------------------------------------

def test_dry_run_prints_prompts_and_runs_nothing(project: Path, two_channels: FakeCliFactory,
                                                 run_mmr: RunMmr) -> None:
    result = run_mmr("critique", "design.md", "--dry-run", "--focus", "operability",
                     cwd=project)
    assert result.code == 0
    lines = result.out.splitlines()
    assert lines[:3] == ["=== DRY RUN - no channels will be dispatched ===",
                         "Artifact: design.md", "Channels configured: ca, cb"]
    assert lines[3:5] == ["", "--- Assembled prompt for ca ---"]
    assert "--- Assembled prompt for cb ---" in result.out
    assert "## Focus Areas\noperability" in result.out
    assert not (two_channels.records_dir / "ca.jsonl").exists()
    assert job_ids() == []


def test_dry_run_with_no_channels_still_exits_0(project: Path, two_channels: FakeCliFactory,
                                                run_mmr: RunMmr) -> None:
    result = run_mmr("critique", "design.md", "--dry-run", "--channels", "", cwd=project)
    assert result.code == 0
    assert result.out.splitlines() == ["=== DRY RUN - no channels will be dispatched ===",
                                       "Artifact: design.md", "Channels configured: (none)"]


def test_findings_schema_flags_are_stripped_and_the_wrapper_applied(
        project: Path, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    grok = fake_cli("gk", stdout={"text": critique_reply(item("Polling will not scale.")),
                                  "stopReason": "EndTurn"})
    write_user_config({"gk": {
        "command": "gk",
        "flags": ["--output-format", "json", "--json-schema", "{{findings_schema}}",
                  "-j", "{{findings_schema}}", "--schema={{findings_schema}}", "--keep"],
        "prompt_wrapper": "<<{{prompt}}>>",
        "output_parser": {"kind": "unwrap-jsonpath", "wrap": "$.text", "then": "default-last",
                          "incomplete": {"status_path": "$.stopReason",
                                         "values": ["Cancelled"], "message": "retry"}},
    }})
    result = run_mmr("critique", "design.md", "--format", "json", cwd=project)
    assert result.code == 0, result.err
    call = grok.last_call()
    assert call["argv"] == ["--output-format", "json", "--keep"]
    assert call["stdin"].startswith("<<# Design Critique") and call["stdin"].endswith(">>")
    assert result.json()["per_channel"]["gk"]["item_count"] == 1


def test_a_cancelled_grok_style_run_is_dispatched_again(project: Path, fake_cli: FakeCliFactory,
                                                        run_mmr: RunMmr) -> None:
    cancelled = {"text": "", "stopReason": "Cancelled"}
    done = {"text": critique_reply(item("Polling will not scale.")), "stopReason": "EndTurn"}
    grok = fake_cli("gk", stdout_sequence=[cancelled, done])
    write_user_config({"gk": {
        "command": "gk",
        "output_parser": {"kind": "unwrap-jsonpath", "wrap": "$.text",
                          "incomplete": {"status_path": "$.stopReason",
                                         "values": ["Cancelled"], "message": "retry"}},
    }})
    result = run_mmr("critique", "design.md", "--format", "json", cwd=project)
    assert result.code == 0
    assert len(grok.calls()) == 2
    assert result.json()["per_channel"]["gk"]["status"] == "completed"


def test_a_channels_own_envelope_unwrapping_is_kept(project: Path, fake_cli: FakeCliFactory,
                                                    run_mmr: RunMmr) -> None:
    """mmr: a custom ``unwrap-jsonpath`` reaches the reply; ``is_error: true`` is a failure."""
    openai = {"choices": [{"message": {"content": critique_reply(item("Poll less often."))}}]}
    fake_cli("oa", stdout=openai)
    fake_cli("cl", stdout={"type": "result", "is_error": True, "result": "API Error: 529"})
    write_user_config({
        "oa": {"command": "oa", "output_parser": {
            "kind": "unwrap-jsonpath", "wrap": "$.choices[0].message.content"}},
        "cl": {"command": "cl", "output_parser": {
            "kind": "unwrap-jsonpath", "wrap": "$.result", "error_path": "$.is_error"}},
    })
    result = run_mmr("critique", "design.md", "--format", "json", cwd=project)
    assert result.code == 0
    channels = result.json()["per_channel"]
    assert channels["oa"]["item_count"] == 1
    assert channels["cl"] == {"status": "failed", "item_count": 0, "reason": "parse_error"}
