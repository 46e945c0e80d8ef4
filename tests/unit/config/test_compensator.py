"""The compensator reference checks after validation."""

from __future__ import annotations

from pathlib import Path

import pytest

from mmr.config.defaults import builtin_layer, default_compensator_channel
from mmr.config.schema import SubprocessChannel
from mmr.errors import ConfigError
from mmr.parsers.specs import UnwrapJsonpathSpec
from tests.unit.config.conftest import Loader

#: The compensator reads its parser from the built-in claude preset.
CLAUDE_PARSER = builtin_layer()["channels"]["claude"]["output_parser"]


@pytest.mark.parametrize(("channel", "message"), [
    ('"  "', "defaults.compensator.channel cannot be empty. Configure a concrete channel name in "
             "the channels: section, or remove the compensator block."),
    ("ghost", 'defaults.compensator.channel references unknown channel "ghost". Configure a '
              "channel with this name in the channels: section, or remove the compensator "
              "block."),
    ("tpl", 'defaults.compensator.channel "tpl" is marked abstract: true (T1-A). Abstract '
            "channels are non-dispatchable templates; reference a concrete channel that "
            "extends it instead."),
    ("gemini", 'defaults.compensator.channel "gemini" is retired and cannot be a compensator. '
               "Reference a supported channel (e.g. antigravity) instead."),
    ("stub", 'defaults.compensator.channel "stub" is missing command. Compensator channels must '
             "be concrete dispatch targets."),
    ("minimax-explore", 'defaults.compensator.channel "minimax-explore" has role explore and '
                        "cannot be a compensator. Reference a review channel instead."),
])
def test_bad_compensator_targets(load: Loader, project_root: Path, channel: str,
                                 message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load(project=f"""\
            defaults:
              compensator: {{channel: {channel}}}
            channels:
              tpl: {{abstract: true, command: t}}
              stub: {{enabled: false}}
            """)
    assert str(caught.value) == (f"{project_root / '.mmr.yaml'}: defaults.compensator.channel: "
                                 f"{message}")


def test_disabled_and_aliased_targets_are_valid(load: Loader) -> None:
    loaded = load(project="""\
        defaults:
          compensator:
            channel: opc
            channel_focus_map: {agy: "look at auth", antigravity: "canonical wins", codex: x}
        """)
    compensator = loaded.defaults.compensator
    assert compensator is not None
    assert compensator.channel == "opencode"
    assert compensator.channel_focus_map == {"antigravity": "canonical wins", "codex": "x"}


def test_http_target_is_valid(load: Loader) -> None:
    loaded = load(project="""\
        defaults: {compensator: {channel: h}}
        channels:
          h: {kind: http, endpoint: "http://h/v1/chat/completions", model: m,
              endpoint_convention: openai-chat}
        """)
    assert loaded.defaults.compensator is not None


def test_default_compensator_unwraps_the_claude_envelope() -> None:
    channel = SubprocessChannel.model_validate(default_compensator_channel())
    assert channel.command == "claude -p"
    assert channel.flags == [
        "--output-format", "json", "--setting-sources", "user", "--strict-mcp-config"]
    assert channel.timeout is None
    assert isinstance(channel.output_parser, UnwrapJsonpathSpec)
    assert channel.output_parser.model_dump(exclude_none=True) == CLAUDE_PARSER
