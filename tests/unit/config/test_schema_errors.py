"""Schema validation through the loader: every issue names file, key path and expectation."""

from __future__ import annotations

from pathlib import Path

import pytest

from mmr.config.issues import ConfigValidationError
from mmr.config.schema import HttpChannel
from mmr.errors import ConfigError
from tests.unit.config.conftest import Loader


def _issues(load: Loader, project: str) -> list[str]:
    with pytest.raises(ConfigValidationError) as caught:
        load(project=project)
    return [f"{i.path}: {i.message}" for i in caught.value.issues]


def test_numeric_string_timeout_names_file_path_and_types(load: Loader,
                                                         project_root: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load(project='defaults:\n  timeout: "300"\n')
    assert str(caught.value) == (f"{project_root / '.mmr.yaml'}: defaults.timeout: "
                                 "expected number, got string")


def test_every_issue_is_collected_before_failing(load: Loader) -> None:
    issues = _issues(load, """\
        defaults:
          timeout: true
          fix_threshold: P5
          min_completed_channels: 0
        channels:
          codex:
            env: {N: 1}
            flags: [--max, 5]
        """)
    assert issues == [
        "defaults.fix_threshold: expected 'P0', 'P1', 'P2' or 'P3', got \"P5\"",
        "defaults.min_completed_channels: must be at least 1, got 0",
        "defaults.timeout: expected number, got boolean",
        "channels.codex.flags[1]: expected string, got number",
        "channels.codex.env.N: expected string, got number",
    ]


def test_integer_fields_take_integral_floats_only(load: Loader) -> None:
    assert load(project="defaults: {min_completed_channels: 2.0}\n"
                ).defaults.min_completed_channels == 2
    assert _issues(load, "defaults: {min_completed_channels: 1.5}\n") == [
        "defaults.min_completed_channels: expected integer, got 1.5"]


@pytest.mark.parametrize("value", ["0", "-5", ".inf"])
def test_timeouts_must_be_finite_and_positive(load: Loader, value: str) -> None:
    issues = _issues(load, f"defaults: {{timeout: {value}}}\n")
    assert len(issues) == 1
    assert issues[0].startswith("defaults.timeout: must be a finite number greater than 0")


def test_a_date_fails_a_string_field(load: Loader) -> None:
    assert _issues(load, "channels:\n  codex:\n    command: 2024-01-01\n") == [
        "channels.codex.command: expected string, got date"]


def test_null_defaults_leaf_fails(load: Loader) -> None:
    assert _issues(load, "defaults:\n  loop_control:\n") == [
        "defaults.loop_control: expected mapping, got null"]


def test_repeat_suppression_rules(load: Loader) -> None:
    assert _issues(load, "defaults:\n  loop_control: {repeat_suppression_enabled: true}\n") == [
        "defaults.loop_control: loop_control.repeat_suppression_enabled requires both "
        "repeat_downgrade_after and repeat_suppress_after"]
    assert _issues(load, "defaults:\n  loop_control: {repeat_downgrade_after: 3, "
                         "repeat_suppress_after: 2}\n") == [
        "defaults.loop_control: loop_control.repeat_suppress_after must be greater than or "
        "equal to repeat_downgrade_after"]
    loaded = load(project="defaults:\n  loop_control: {repeat_suppression_enabled: true, "
                          "repeat_downgrade_after: 2, repeat_suppress_after: 2}\n")
    assert loaded.defaults.loop_control.repeat_suppress_after == 2


def test_compensator_is_strict(load: Loader) -> None:
    assert _issues(load, "defaults:\n  compensator: {chanel: codex}\n") == [
        'defaults.compensator.chanel: unrecognized key "chanel"',
        "defaults.compensator: defaults.compensator must define channel or channel_focus_map",
    ]
    assert _issues(load, "defaults:\n  compensator: {}\n") == [
        "defaults.compensator: defaults.compensator must define channel or channel_focus_map"]
    assert load(project="defaults:\n  compensator: {channel_focus_map: {codex: security}}\n"
                ).defaults.compensator is not None


def test_subprocess_auth_needs_all_three_keys_on_a_new_channel(load: Loader) -> None:
    assert _issues(load, "channels:\n  mine:\n    command: mine\n    auth: {check: x}\n") == [
        "channels.mine.auth.failure_exit_codes: required",
        "channels.mine.auth.recovery: required",
    ]
    claude = load(project="channels:\n  claude:\n    auth: {timeout: 8}\n").channels["claude"]
    assert claude.auth is not None and claude.auth.timeout == 8


def test_unknown_channel_kind(load: Loader) -> None:
    assert _issues(load, "channels:\n  x:\n    kind: grpc\n    command: x\n") == [
        'channels.x.kind: unknown kind "grpc" (expected one of "subprocess", "http", "replay")']


def test_unknown_parser_kind_names_the_problem(load: Loader, project_root: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load(project="channels:\n  codex:\n    output_parser: {kind: xml-findings}\n")
    assert str(caught.value) == (
        f"{project_root / '.mmr.yaml'}: channels.codex.output_parser.kind: unknown parser kind "
        '"xml-findings" (expected one of "unwrap-jsonpath", "regex-findings", '
        '"markdown-findings", "answer")')


def test_parser_object_errors(load: Loader) -> None:
    assert _issues(load, "channels:\n  codex:\n    output_parser: {kind: unwrap-jsonpath}\n") == [
        "channels.codex.output_parser.wrap: required"]
    assert _issues(load, "channels:\n  codex:\n    output_parser: 5\n") == [
        "channels.codex.output_parser: expected string or mapping, got number"]
    issues = _issues(load, """\
        channels:
          codex:
            output_parser:
              kind: regex-findings
              pattern: "(.*)"
              flags: "gx"
              fields: {location: 0}
        """)
    assert "channels.codex.output_parser.fields.location: must be at least 1, got 0" in issues
    assert "channels.codex.output_parser.fields.description: required" in issues
    assert any(i.startswith("channels.codex.output_parser.flags: ") for i in issues)
    assert _issues(load, "channels:\n  grok:\n    output_parser:\n      incomplete:\n"
                         "        values: []\n") == [
        "channels.grok.output_parser.incomplete.values: must not be empty"]


def test_http_channel_requirements(load: Loader) -> None:
    issues = _issues(load, "channels:\n  h:\n    kind: http\n    endpoint_convention: generic\n")
    assert issues == [
        "channels.h.endpoint: required",
        "channels.h.model: required",
        "channels.h.endpoint_convention: expected 'openai-chat', got \"generic\"",
    ]
    assert _issues(load, """\
        channels:
          h: {kind: http, endpoint: "http://x/v1/chat/completions", model: m,
              endpoint_convention: openai-chat, auth: {timeout: 0}}
        """) == ["channels.h.auth.timeout: must be a finite number greater than 0, got 0"]


def test_http_endpoint_must_allow_deriving_the_probe(load: Loader) -> None:
    assert _issues(load, """\
        channels:
          h: {kind: http, endpoint: "http://x/v1/generate", model: m,
              endpoint_convention: openai-chat}
        """) == ['channels.h.auth.check_endpoint: endpoint "http://x/v1/generate" does not end in '
                 "/chat/completions; auth.check_endpoint is required."]
    loaded = load(project="""\
        channels:
          h: {kind: http, endpoint: "http://x/v1/generate", model: m,
              endpoint_convention: openai-chat, auth: {check_endpoint: "http://x/v1/models"}}
          g: {kind: http, endpoint: "http://x/v1/chat/completions/", model: m,
              endpoint_convention: openai-chat}
        """)
    g = loaded.channels["g"]
    assert isinstance(g, HttpChannel)
    assert (g.auth.check_method, g.auth.check_status_ok, g.auth.timeout) == ("GET", [200], 5)
    assert (g.api_key_header, g.api_key_prefix) == ("Authorization", "Bearer ")
    assert g.probe_url == "http://x/v1/models"
    h = loaded.channels["h"]
    assert isinstance(h, HttpChannel) and h.probe_url == "http://x/v1/models"


def test_mmr_channel_keys_are_validated(load: Loader) -> None:
    issues = _issues(load, """\
        channels:
          codex:
            role: judge
            retry: {attempts: -1, on: [timeout]}
            telemetry: {tokens: "$.x"}
            on_credentials: ignore
            max_diff_lines: 0
            vars: {flag: true}
        """)
    assert "channels.codex.retry.attempts: must be at least 0, got -1" in issues
    assert ('channels.codex.retry.on: retry.on: "timeout" cannot be retried (allowed: failed, '
            "parse_error, gate_failed, incomplete)") in issues
    assert 'channels.codex.telemetry.tokens: unrecognized key "tokens"' in issues
    assert "channels.codex.vars.flag: expected string, integer or number, got boolean" in issues
    assert any(i.startswith("channels.codex.role: expected 'review' or 'explore'") for i in issues)
    assert any(i.startswith("channels.codex.on_credentials: ") for i in issues)
    assert "channels.codex.max_diff_lines: must be at least 1, got 0" in issues


def test_user_file_is_named_for_a_user_value(load: Loader) -> None:
    from mmr.config.paths import user_config_path

    with pytest.raises(ConfigError) as caught:
        load(user="channels:\n  codex: {timeout: fast}\n")
    assert str(caught.value).startswith(f"{user_config_path()}: channels.codex.timeout: ")


def test_formats_accept_mmr_additions(load: Loader) -> None:
    assert load(project="defaults: {format: sarif}\n").defaults.format == "sarif"
    assert load(cli={"format": "github"}).defaults.format == "github"


def test_a_replay_channel_names_exactly_one_source(load: Loader) -> None:
    assert _issues(load, "channels:\n  r:\n    kind: replay\n    replay: {}\n") == [
        "channels.r.replay: replay needs exactly one of file or job"]
    both = "channels:\n  r:\n    kind: replay\n    replay: {file: a, job: b}\n"
    assert _issues(load, both) == ["channels.r.replay: replay needs exactly one of file or job"]
    stray = "channels:\n  r:\n    kind: replay\n    replay: {file: a, channel: c}\n"
    assert _issues(load, stray) == [
        "channels.r.replay: replay.channel names a channel of replay.job; set job"]
    assert _issues(load, "channels:\n  r:\n    kind: replay\n") == ["channels.r.replay: required"]
