"""Per-field provenance."""

from __future__ import annotations

from mmr.config.provenance import Provenance, fill_missing
from tests.unit.config.conftest import Loader


def test_sources_per_layer(load: Loader) -> None:
    loaded = load(
        user="defaults: {timeout: 100}\nchannels:\n  codex: {timeout: 50}\n",
        project="defaults: {fix_threshold: P1}\nchannels:\n  claude: {timeout: 600}\n",
        cli={"format": "text"},
    )
    source = loaded.provenance.source_of
    assert source(("defaults", "timeout")) == "user"
    assert source(("defaults", "fix_threshold")) == "project"
    assert source(("defaults", "format")) == "cli"
    assert source(("defaults", "parallel")) == "default"
    assert source(("defaults", "ack_retention_days")) == "default"
    assert source(("defaults", "loop_control", "max_rounds_default")) == "default"
    assert source(("channels", "claude", "command")) == "default"
    assert source(("channels", "claude", "timeout")) == "project"
    assert source(("channels", "codex", "timeout")) == "user"
    assert source(("channels", "claude", "auth", "recovery")) == "default"


def test_the_last_layer_that_set_a_leaf_wins_even_with_the_same_value(load: Loader) -> None:
    loaded = load(user="defaults: {timeout: 300}\n", project="defaults: {timeout: 300}\n")
    assert loaded.provenance.source_of(("defaults", "timeout")) == "project"


def test_inherited_fields_carry_the_parents_source(load: Loader) -> None:
    loaded = load(project="channels:\n  strict-claude:\n    extends: claude\n    timeout: 600\n")
    source = loaded.provenance.source_of
    assert source(("channels", "strict-claude", "command")) == "default"
    assert source(("channels", "strict-claude", "timeout")) == "project"
    assert source(("channels", "strict-claude", "enabled")) == "default"


def test_inherited_user_source_is_not_hidden_by_schema_defaults(load: Loader) -> None:
    loaded = load(user="channels:\n  tpl: {abstract: true, command: t, flags: [--x]}\n",
                  project="channels:\n  kid: {extends: tpl}\n")
    source = loaded.provenance.source_of
    assert source(("channels", "kid", "flags")) == "user"
    assert source(("channels", "kid", "command")) == "user"
    assert source(("channels", "kid", "kind")) == "default"
    assert source(("channels", "kid", "abstract")) == "default"


def test_custom_channel_schema_fields_are_default(load: Loader) -> None:
    loaded = load(project="channels:\n  mine: {command: mine}\n")
    source = loaded.provenance.source_of
    assert source(("channels", "mine", "command")) == "project"
    assert source(("channels", "mine", "enabled")) == "default"
    assert source(("channels", "mine", "kind")) == "default"
    assert source(("channels", "mine", "stderr")) == "default"


def test_extends_reset_wipes_the_builtin_sources(load: Loader) -> None:
    loaded = load(user="channels:\n  lb: {abstract: true, command: c}\n",
                  project="channels:\n  claude: {extends: lb}\n")
    assert loaded.provenance.source_of(("channels", "claude", "command")) == "user"


def test_channels_disabled_source(load: Loader) -> None:
    assert load().channels_disabled_source is None
    assert load(user="channels_disabled: [codex]\n").channels_disabled_source == "user"
    assert load(project="channels_disabled: []\n").channels_disabled_source == "project"


def test_lookups_on_the_tree() -> None:
    prov = Provenance({"channels": {"c": {"env": {"A": "user", "B": "project"}, "x": "cli"}}})
    assert prov.source_of(("channels", "c", "env")) == "project"
    assert prov.source_of(("channels", "c", "missing")) == "default"
    assert prov.source_of(("channels", "c", "env", "C"), nearest=True) == "project"
    assert prov.source_of(("channels", "c", "x", "deeper"), nearest=True) == "cli"
    tree: dict[str, object] = {"a": "user"}
    fill_missing(tree, {"a": 1, "b": {"c": [1]}, "n": None})
    assert tree == {"a": "user", "b": {"c": "default"}}
