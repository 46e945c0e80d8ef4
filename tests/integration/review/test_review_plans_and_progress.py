"""Per-channel plans and the progress display, as pure pieces."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import yaml
from rich.console import Console

from mmr.config.loaded import LoadedConfig
from mmr.config.loader import load_config
from mmr.config.paths import user_config_path
from mmr.dispatch.plan import ChannelEvent
from mmr.prompt.plans import PreparedDiff, PromptParts, plan_channels
from mmr.review.progress import ProgressDisplay, plain_line, progress_for

DIFF = ("diff --git a/src/a.py b/src/a.py\n--- a/src/a.py\n+++ b/src/a.py\n@@ -1 +1 @@\n-x\n"
        "+y = 'ghp_abcdefghijklmnopqrstuvwxyz'\n"
        "diff --git a/keys/k.pem b/keys/k.pem\n--- a/keys/k.pem\n+++ b/keys/k.pem\n"
        "@@ -1 +1 @@\n-a\n+b\n")


def loaded(tmp_path: Path, channels: dict[str, Any], **cli: Any) -> LoadedConfig:
    path = user_config_path()  # under the test's own MMR_HOME
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump({"channels": channels}))
    return load_config(tmp_path, project_source=None, cli_overrides=cli)


def test_a_schema_flag_makes_the_parser_take_the_last_object(tmp_path: Path) -> None:
    config = loaded(tmp_path, {"g": {"command": "g", "flags": ["--json-schema",
                                                              "{{findings_schema}}"]}})
    [planned] = plan_channels(["g"], config, PreparedDiff.prepare(DIFF, 12), PromptParts())
    assert planned.plan is not None
    assert planned.plan.output_parser == "default-last"
    # The dispatch expands the placeholder (tests/integration/dispatch/test_runner.py).
    assert planned.plan.channel.flags == ["--json-schema", "{{findings_schema}}"]


def test_timeout_flag_wins_over_a_channel_timeout(tmp_path: Path) -> None:
    config = loaded(tmp_path, {"a": {"command": "a", "timeout": 600}}, timeout=30)
    [planned] = plan_channels(["a"], config, PreparedDiff.prepare(DIFF, 12), PromptParts())
    assert planned.plan is not None and planned.plan.timeout_s == 30


def test_each_channel_gets_its_own_copy_of_the_diff(tmp_path: Path) -> None:
    config = loaded(tmp_path, {
        "redact": {"command": "a"},
        "allow": {"command": "a", "on_credentials": "allow"},
        "refuse": {"command": "a", "on_credentials": "refuse"},
        "narrow": {"command": "a", "diff_exclude": ["*.pem"]},
        "small": {"command": "a", "max_diff_lines": 5},
    })
    plans = {p.name: p for p in plan_channels(list(config.channels)[-5:], config,
                                              PreparedDiff.prepare(DIFF, 12), PromptParts())}
    redact, allow = plans["redact"].plan, plans["allow"].plan
    assert redact is not None and allow is not None
    assert "<redacted:github-token>" in redact.prompt and "ghp_" not in redact.prompt
    assert "ghp_abcdefghijklmnopqrstuvwxyz" in allow.prompt
    refused = plans["refuse"]
    assert refused.plan is None and refused.skip is not None
    assert refused.skip.reason == "credential_refused"
    narrow = plans["narrow"]
    assert narrow.plan is not None and "k.pem" not in narrow.plan.prompt
    assert narrow.excluded_files == ("keys/k.pem",)
    small = plans["small"]
    assert small.skip is not None
    assert small.skip.message == "diff too large: 12 lines > 5"


def test_plain_lines_for_each_state_change() -> None:
    assert plain_line(ChannelEvent("codex", "running")) == "[mmr] codex: running"
    assert plain_line(ChannelEvent("codex", "completed", 12.34)) == \
        "[mmr] codex: completed (12.3s)"
    assert plain_line(ChannelEvent("grok", "failed", 3.0, attempt=2, reason="parse_error")) == \
        "[mmr] grok: failed (3.0s) [parse_error] (attempt 2)"


def test_off_a_terminal_progress_is_plain_lines() -> None:
    stream = io.StringIO()
    display = progress_for(stream, quiet=False, color=False)
    assert display is not None and display.live is False
    with display.showing(["a", "b"]):
        display(ChannelEvent("a", "running"))
        display(ChannelEvent("a", "completed", 1.0))
    assert stream.getvalue() == "[mmr] a: running\n[mmr] a: completed (1.0s)\n"
    assert progress_for(stream, quiet=True, color=False) is None


def test_the_live_table_shows_every_channel_and_its_state() -> None:
    display = ProgressDisplay(io.StringIO(), live=True, color=False)
    with display.showing(["codex", "grok"]):
        display(ChannelEvent("codex", "running"))
        display(ChannelEvent("grok", "not_installed"))
        display(ChannelEvent("compensating-grok", "completed", 2.5))
        console = Console(record=True, width=80, no_color=True, file=io.StringIO())
        console.print(display)
    lines = [line.split() for line in console.export_text().splitlines() if line.strip()]
    assert lines[0][:2] == ["codex", "running"]
    assert lines[1] == ["grok", "not_installed"]
    assert lines[2] == ["compensating-grok", "completed", "2.5s"]
    assert display.stream.getvalue() != ""  # the Live drew on its own stream


def test_live_output_has_no_colour_codes_when_colour_is_off() -> None:
    stream = io.StringIO()
    display = ProgressDisplay(stream, live=True, color=False)
    with display.showing(["a"]):
        display(ChannelEvent("a", "failed", 1.0))
    assert "\x1b[3" not in stream.getvalue()  # no foreground colour (cursor moves are fine)
