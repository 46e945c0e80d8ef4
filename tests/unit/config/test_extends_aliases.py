"""Aliases, extends, abstract templates, tombstones and runnable checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from mmr.config.merge import deep_merge, resolve_extends
from mmr.config.schema import HttpChannel, SubprocessChannel
from mmr.errors import ConfigError
from tests.unit.config.conftest import Loader


def _sub(channel: object) -> SubprocessChannel:
    assert isinstance(channel, SubprocessChannel)
    return channel


def test_alias_key_merges_onto_its_channel_and_warns(load: Loader, warnings: list[str]) -> None:
    loaded = load(project="channels:\n  agy:\n    timeout: 99\n")
    assert "agy" not in loaded.channels
    assert loaded.channels["antigravity"].timeout == 99
    assert warnings == ['mmr: config channel "agy" is an alias for "antigravity"; '
                        'using "antigravity"']


def test_alias_and_canonical_in_one_file_keeps_the_canonical(load: Loader,
                                                             warnings: list[str]) -> None:
    loaded = load(project="channels:\n  opc: {timeout: 1}\n  opencode: {timeout: 2}\n")
    assert loaded.channels["opencode"].timeout == 2
    assert warnings == ['mmr: config channel "opc" is an alias for "opencode"; "opencode" is '
                        'also set — ignoring "opc"']


def test_child_inherits_and_overrides_and_siblings_stay_apart(load: Loader) -> None:
    loaded = load(project="""\
        channels:
          base:
            abstract: true
            command: "tool run"
            flags: ["--a", "--b"]
            env: {A: "1"}
            auth: {check: "tool ok", failure_exit_codes: [1], recovery: "tool login"}
          one:
            extends: base
            flags: ["--one"]
            env: {B: "2"}
          two:
            extends: base
            timeout: 5
        """)
    one, two = _sub(loaded.channels["one"]), _sub(loaded.channels["two"])
    assert (one.command, one.flags, one.env) == ("tool run", ["--one"], {"A": "1", "B": "2"})
    assert one.auth is not None and one.auth.recovery == "tool login"
    assert (two.flags, two.env, two.timeout, one.timeout) == (["--a", "--b"], {"A": "1"}, 5, None)
    assert not one.abstract and not two.abstract
    assert loaded.channels["base"].abstract
    assert all(ch.extends is None for ch in loaded.channels.values())


def _chain(hops: int) -> str:
    lines = ["channels:", "  l1: {command: base}"]
    lines += [f"  l{i}: {{extends: l{i - 1}}}" for i in range(2, hops + 2)]
    return "\n".join(lines) + "\n"


def test_four_hops_load_and_five_fail_with_the_chain(load: Loader) -> None:
    assert _sub(load(project=_chain(4)).channels["l5"]).command == "base"
    with pytest.raises(ConfigError, match=r"channels\.l6\.extends: Channel extends depth exceeds "
                                          r"max \(4\) at l6 -> l5 -> l4 -> l3 -> l2 -> l1$"):
        load(project=_chain(5))


def test_extends_cycle_is_rejected_with_the_chain(load: Loader, project_root: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load(project="channels:\n  a: {extends: b}\n  b: {extends: a}\n")
    assert str(caught.value) == (f"{project_root / '.mmr.yaml'}: channels.b.extends: "
                                 "Channel extends cycle detected: a -> b -> a")
    with pytest.raises(ConfigError, match="cycle detected: s -> s"):
        load(project="channels:\n  s: {extends: s}\n")


def test_missing_parent(load: Loader) -> None:
    with pytest.raises(ConfigError, match=r'channels\.kid\.extends: Channel "nobody" referenced '
                                          r"by extends not found"):
        load(project="channels:\n  kid: {extends: nobody}\n")


def test_extends_accepts_an_alias(load: Loader) -> None:
    assert _sub(load(project="channels:\n  mine: {extends: agy}\n").channels["mine"]
                ).command == "agy"


def test_non_string_extends_is_a_type_error(load: Loader) -> None:
    with pytest.raises(ConfigError, match=r"channels\.x\.extends: expected string, got number"):
        load(project="channels:\n  x: {command: x, extends: 5}\n")


def test_enabled_false_is_inherited_and_abstract_is_not(load: Loader) -> None:
    loaded = load(project="""\
        channels:
          audit: {extends: doc-conformance}
          tpl: {abstract: true, command: t}
          kid: {extends: tpl}
          oldie: {extends: gemini}
        """)
    assert not loaded.channels["audit"].enabled
    assert not loaded.channels["kid"].abstract
    assert loaded.channels["oldie"].retired is True


def test_redefining_a_builtin_with_extends_resets_it(load: Loader) -> None:
    loaded = load(
        user="channels:\n  local-base:\n    abstract: true\n    command: 'claude -p --local'\n",
        project="channels:\n  claude:\n    extends: local-base\n",
    )
    claude = _sub(loaded.channels["claude"])
    assert claude.command == "claude -p --local"
    assert claude.auth is None
    assert claude.flags == []
    assert claude.output_parser == "default"
    assert next(iter(loaded.channels)) == "claude"
    builtin = loaded.layer("default")
    assert builtin is not None
    assert builtin.data["channels"]["claude"]["command"] == "claude -p"


def test_kindless_child_of_an_http_parent_is_http(load: Loader) -> None:
    loaded = load(project="""\
        channels:
          hbase: {kind: http, endpoint: "http://h/v1/chat/completions", model: m,
                  endpoint_convention: openai-chat}
          hchild: {model: other}
        """.replace("hchild: {", "hchild: {extends: hbase, "))
    child = loaded.channels["hchild"]
    assert isinstance(child, HttpChannel)
    assert child.model == "other"


def test_enabled_concrete_channel_needs_a_command(load: Loader, project_root: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load(project="channels:\n  ghost: {timeout: 5}\n")
    assert str(caught.value) == (
        f"{project_root / '.mmr.yaml'}: channels.ghost.command: Channel \"ghost\" must define "
        "command after inheritance unless abstract is set")
    loaded = load(project="channels:\n  ghost: {enabled: false}\n  tpl: {abstract: true}\n")
    assert "ghost" in loaded.channels and "tpl" in loaded.channels


def test_gemini_stays_a_tombstone(load: Loader) -> None:
    gemini = load(project="channels:\n  gemini: {retired: false, enabled: true}\n"
                  ).channels["gemini"]
    assert (gemini.retired, gemini.enabled) == (True, False)


def test_deep_merge_rules() -> None:
    base = {"a": {"x": 1, "y": [1, 2]}, "b": 1, "c": {"k": 1}}
    overlay = {"a": {"y": [3], "z": 2}, "c": None, "d": 4}
    assert deep_merge(base, overlay) == {"a": {"x": 1, "y": [3], "z": 2}, "b": 1, "c": None,
                                         "d": 4}
    assert list(deep_merge(base, overlay)) == ["a", "b", "c", "d"]
    assert base == {"a": {"x": 1, "y": [1, 2]}, "b": 1, "c": {"k": 1}}


def test_resolve_extends_tracks_sources_alongside_values() -> None:
    values = {"p": {"command": "p", "abstract": True, "env": {"A": "1"}},
              "c": {"extends": "p", "env": {"B": "2"}}}
    sources = {"p": {"command": "user", "abstract": "user", "env": {"A": "user"}},
               "c": {"extends": "project", "env": {"B": "project"}}}
    got_values, got_sources = resolve_extends(values, sources)
    assert got_values["c"] == {"command": "p", "env": {"A": "1", "B": "2"}}
    assert got_sources["c"] == {"command": "user", "env": {"A": "user", "B": "project"}}
    assert values["c"] == {"extends": "p", "env": {"B": "2"}}
