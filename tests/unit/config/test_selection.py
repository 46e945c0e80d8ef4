"""Channel selection."""

from __future__ import annotations

import pytest

from mmr.config.selection import (
    default_channels,
    is_effective,
    select_channels,
    split_channel_args,
)
from mmr.errors import ChannelSelectionError
from tests.unit.config.conftest import Loader

PROJECT = """\
    channels_disabled: [agy, nobody]
    channels:
      base: {abstract: true, command: base}
      qwen: {extends: base}
      deepseek: {command: deepseek}
      stub: {enabled: false}
      off: {command: off, enabled: false}
      explorer: {command: explore-it, role: explore}
    """


def test_default_selection_skips_disabled_listed_abstract_retired_and_explore(
        load: Loader) -> None:
    config = load(project=PROJECT).config
    assert select_channels(config, None) == ["claude", "codex", "grok", "qwen", "deepseek"]
    assert default_channels(config, "explore") == ["explorer"]


def test_explicit_list_is_flattened_canonicalised_and_deduplicated(load: Loader) -> None:
    config = load(project=PROJECT).config
    assert select_channels(config, ["qwen,deepseek", "agy", "antigravity,qwen"]) == [
        "qwen", "deepseek", "antigravity"]
    assert select_channels(config, []) == []
    assert select_channels(config, [" , "]) == []
    assert split_channel_args(["opc, codex", "codex"]) == ["opencode", "codex"]


def test_explicit_list_overrides_enabled_false_and_channels_disabled(load: Loader) -> None:
    config = load(project=PROJECT).config
    assert select_channels(config, ["off", "antigravity", "opencode", "minimax"]) == [
        "off", "antigravity", "opencode", "minimax"]


@pytest.mark.parametrize(("name", "message"), [
    ("gemini", 'Channel "gemini" is retired and cannot be dispatched — use "antigravity" '
               "instead."),
    ("base", 'Channel "base" is abstract and cannot be dispatched'),
    ("stub", 'Channel "stub" is not fully configured (missing command or kind: http)'),
    ("explorer", 'Channel "explorer" has role explore and cannot be dispatched by review'),
    ("qwne", 'Channel "qwne" not found in config; did you mean "qwen"?'),
])
def test_explicit_problems(load: Loader, name: str, message: str) -> None:
    config = load(project=PROJECT).config
    with pytest.raises(ChannelSelectionError) as caught:
        select_channels(config, ["codex", name])
    assert str(caught.value) == message


def test_unknown_name_without_a_close_match_lists_known_channels(load: Loader) -> None:
    with pytest.raises(ChannelSelectionError, match=r'^Channel "zzzzzzzz" not found in config\. '
                                                    r"Known channels: claude, gemini, codex"):
        select_channels(load().config, ["zzzzzzzz"])


def test_retired_custom_channel_has_no_hint(load: Loader) -> None:
    config = load(project="channels:\n  old: {extends: gemini}\n").config
    with pytest.raises(ChannelSelectionError) as caught:
        select_channels(config, ["old"])
    assert str(caught.value) == 'Channel "old" is retired and cannot be dispatched.'


def test_review_channel_cannot_be_explored(load: Loader) -> None:
    with pytest.raises(ChannelSelectionError,
                       match='Channel "codex" has role review and cannot be dispatched by explore'):
        select_channels(load().config, ["codex"], role="explore")


def test_explore_falls_back_to_minimax_explore(load: Loader) -> None:
    config = load().config
    assert select_channels(config, None, role="explore") == ["minimax-explore"]
    enabled = load(project="channels:\n  minimax-explore: {enabled: true}\n").config
    assert default_channels(enabled, "explore") == ["minimax-explore"]


def test_effective_status(load: Loader) -> None:
    config = load(project=PROJECT).config
    assert is_effective(config, "codex")
    assert not is_effective(config, "antigravity")
    assert not is_effective(config, "agy")
    assert not is_effective(config, "base")
    assert not is_effective(config, "gemini")
    assert not is_effective(config, "off")
    assert not is_effective(config, "missing")


def test_minimax_presets_are_never_selected_by_default(load: Loader) -> None:
    assert select_channels(load().config, None) == ["claude", "codex", "grok", "antigravity"]
