"""Renderings of the config commands as pure functions."""

from __future__ import annotations

from pathlib import Path

from mmr.config.yaml_io import parse_yaml
from mmr.config_edit.init_template import EXAMPLE_IDS, EXAMPLES_HEADER, render_init_config
from mmr.config_edit.scope import WriteTarget
from mmr.config_edit.toggle import ToggleOutcome, retired_message, toggle_report
from mmr.config_edit.views import channels_table, compact_json, js_value, paths_report
from mmr.config_edit.writer import ConfigFile


def test_compact_json_prints_numbers_as_javascript_does():
    assert compact_json(600.0) == "600"
    assert compact_json(0.5) == "0.5"
    assert compact_json(["--api-key", "<redacted>"]) == '["--api-key","<redacted>"]'
    assert compact_json({"a": 1.0, "b": [2.0, True, None]}) == '{"a":1,"b":[2,true,null]}'
    assert compact_json('Say "{{prompt}}"') == '"Say \\"{{prompt}}\\""'
    assert compact_json("café") == '"café"'
    assert js_value(float("inf")) == float("inf")


def test_channels_table_pads_18_and_11_and_never_truncates():
    rows = [
        {"name": "claude", "effective": True, "source": "default"},
        {"name": "exactly-eighteen-c", "effective": False, "source": "project"},
    ]
    assert channels_table(rows).splitlines() == [
        "CHANNEL           STATUS     SOURCE",
        "claude            enabled    default",
        "exactly-eighteen-cdisabled   project",
    ]


def test_paths_report_marks_existing_files(tmp_path: Path):
    user = tmp_path / "config.yaml"
    user.write_text("version: 1\n")
    project = tmp_path / "repo" / ".mmr.yaml"
    lines = paths_report(user, project).splitlines()
    assert lines[2] == f"  2 {user}      ✓ exists"
    assert lines[3] == f"  3 {project}            ✗ not found"


def outcome(**overrides: object) -> ToggleOutcome:
    base: dict[str, object] = {
        "channel": "codex", "enable": False,
        "target": WriteTarget(ConfigFile(Path("/p/.mmr.yaml"), "project")),
        "effective": False, "source": "project", "retired": False,
    }
    base.update(overrides)
    return ToggleOutcome(**base)  # type: ignore[arg-type]


def test_toggle_report_lines():
    assert toggle_report(outcome()).splitlines() == [
        "✓ Disabled channel 'codex'",
        "  wrote /p/.mmr.yaml",
        "  now    codex  disabled  (project)",
        "  revert mmr config enable codex --project",
    ]


def test_toggle_report_warns_naming_the_other_scope():
    user = WriteTarget(ConfigFile(Path("/h/.mmr/config.yaml"), "user"), not_installed=True)
    lines = toggle_report(outcome(target=user, effective=True, source="project")).splitlines()
    assert lines[1] == ("  codex CLI not installed — recorded as a machine-level preference in "
                        "/h/.mmr/config.yaml")
    assert "  ⚠ another config layer still enables this channel" in lines
    assert "    or re-run with --project to change the other layer" in lines
    assert lines[-1] == "  revert mmr config enable codex --global"


def test_retired_channels_get_no_revert_line_and_a_replacement_hint():
    assert "revert" not in toggle_report(outcome(channel="gemini", retired=True))
    assert retired_message("gemini") == (
        "Channel 'gemini' is retired and cannot be enabled — use \"antigravity\" (agy).")
    assert retired_message("old-bot") == "Channel 'old-bot' is retired and cannot be enabled."


def test_init_template_without_examples():
    text = render_init_config([("claude", True), ("codex", False)], [])
    assert text.endswith("timeout: 300\n\nchannels:\n  claude:\n    enabled: true\n"
                         "  codex:\n    enabled: false\n")
    assert EXAMPLES_HEADER not in text
    assert parse_yaml(text, "t")["channels"] == {"claude": {"enabled": True},
                                                  "codex": {"enabled": False}}


def test_init_template_examples_follow_probe_order():
    text = render_init_config([("claude", True)], list(reversed(EXAMPLE_IDS)))
    headers = [line.split()[2] for line in text.splitlines() if line.startswith("# example:")]
    assert headers == list(EXAMPLE_IDS)
    assert text.count(EXAMPLES_HEADER) == 1
    assert text.endswith("\n") and not text.endswith("\n\n")
    assert parse_yaml(text, "t")["channels"] == {"claude": {"enabled": True}}
