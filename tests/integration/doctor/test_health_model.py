"""Pure pieces of ``mmr doctor``: row classification, gate mapping, exit code, rendering."""

from __future__ import annotations

import pytest

from mmr.config.channel_schema import SubprocessChannel
from mmr.dispatch.plan import AuthResult
from mmr.doctor.checks import (
    ChannelHealth,
    HealthStatus,
    doctor_exit_code,
    not_installed_recovery,
    probed_health,
    unprobed_health,
)
from mmr.doctor.fix import FixOutcome
from mmr.doctor.report import render_text, summary_line
from mmr.doctor.warnings import auth_checks


def channel(**fields: object) -> SubprocessChannel:
    return SubprocessChannel.model_validate(fields)


def test_first_match_wins_among_the_unprobed():
    retired_and_off = channel(command="gemini", retired=True, enabled=False)
    assert unprobed_health("gemini", retired_and_off, set()) == ChannelHealth(
        "gemini", "retired", installed=False)
    abstract = channel(command="x", abstract=True, enabled=False)
    assert unprobed_health("base", abstract, set()).status == "abstract"  # type: ignore[union-attr]
    listed = unprobed_health("codex", channel(command="codex"), {"codex"})
    assert listed is not None and listed.status == "disabled"
    blank = unprobed_health("stub", channel(command="   "), set())
    assert blank == ChannelHealth("stub", "missing_command", installed=False)
    assert unprobed_health("codex", channel(command="codex exec"), set()) is None


@pytest.mark.parametrize(("gate", "status", "recovery"), [
    (AuthResult("ok"), "ok", None),
    (AuthResult("failed", recovery="codex login"), "auth_failed", "codex login"),
    (AuthResult("failed"), "auth_failed", None),
    (AuthResult("timeout", recovery="ignored"), "timeout", None),
])
def test_gate_results_map_to_health(gate: AuthResult, status: HealthStatus,
                                    recovery: str | None):
    row = probed_health("codex", channel(command="codex"), gate, "v1")
    assert row == ChannelHealth("codex", status, installed=True, recovery=recovery, version="v1")


def test_not_installed_row_redacts_the_token():
    row = probed_health("bot", channel(command="API_TOKEN=sk-abc123 bot run"),
                        AuthResult("not_installed", recovery="API_TOKEN=... not found on PATH"))
    assert row == ChannelHealth(
        "bot", "not_installed", installed=False,
        recovery="install <redacted>, or stop dispatching it: mmr config disable bot")
    assert not_installed_recovery("agy", "antigravity") == (
        "install agy, or stop dispatching it: mmr config disable antigravity")


def rows(*statuses: HealthStatus) -> list[ChannelHealth]:
    return [ChannelHealth(f"c{i}", status, installed=False) for i, status in enumerate(statuses)]


def test_exit_codes():
    assert doctor_exit_code(rows("ok", "disabled", "retired", "abstract")) == 0
    for bad in ("auth_failed", "timeout", "missing_command", "not_installed"):
        assert doctor_exit_code(rows("ok", bad)) == 1, bad
    missing = rows("ok", "not_installed", "not_installed")
    assert doctor_exit_code(missing, fixed={"c1", "c2"}) == 0
    assert doctor_exit_code(missing, fixed={"c1"}) == 1
    assert doctor_exit_code(missing, fixed={"c1", "c2"}, fix_failed=True) == 1
    assert doctor_exit_code(rows("timeout", "not_installed"), fixed={"c1"}) == 1


def test_summary_counts_before_fixing():
    assert summary_line(rows("ok", "ok", "auth_failed", "timeout", "missing_command",
                             "not_installed", "disabled", "abstract", "retired")) == (
        "Channels: 2 ready · 4 need attention · 3 off")


def test_fix_hint_only_without_fix():
    missing = rows("not_installed")
    assert render_text(missing, fix=False).endswith(
        "\n\nRun `mmr doctor --fix` to disable the not-installed channel(s) above.")
    assert "--fix" not in render_text(missing, fix=True)
    assert "--fix" not in render_text(rows("auth_failed"), fix=False)


def test_fix_outcome_lines(tmp_path):
    file = tmp_path / "config.yaml"
    assert FixOutcome("codex", file, ok=True).line == f"  ✓ disabled codex in {file}"
    assert FixOutcome("codex", file, ok=False, error="boom").line == (
        "  ✗ could not disable codex: boom")
    assert FixOutcome("codex", file, ok=False).line.startswith(
        f"  ✗ wrote codex disabled to {file}, but a higher-precedence layer still enables it")


def test_auth_checks_found_in_channels_and_templates():
    text = """
channels:
  a: {command: x, auth: {check: "true"}}
  b: {command: y}
  c: null
templates:
  t: {auth: {check: "exit 0"}}
"""
    assert auth_checks(text) == {"a": "true", "templates.t": "exit 0"}
    assert auth_checks("not: [valid") == {}
    assert auth_checks("") == {}
