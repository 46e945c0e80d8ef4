"""Template-named prompt wrappers and the parser names config knows about."""

from __future__ import annotations

import pytest

from mmr.config.wrapper import resolve_prompt_wrapper, wrapper_template
from mmr.errors import ConfigError
from mmr.parsers import get_parser
from mmr.parsers.registry import _REGISTRY
from mmr.resources import templates_dir
from tests.unit.config.conftest import Loader


def test_inline_wrappers_pass_through() -> None:
    assert wrapper_template("Review: {{prompt}}") is None
    assert resolve_prompt_wrapper("Review: {{prompt}}") == "Review: {{prompt}}"
    assert wrapper_template("x {{template:a.md}}") is None


def test_a_template_token_reads_the_shipped_template() -> None:
    shipped = sorted(p.name for p in templates_dir().glob("*.md"))
    assert shipped, f"no templates in {templates_dir()}"
    name = shipped[0]
    assert wrapper_template(f"{{{{template:{name}}}}}") == name
    assert resolve_prompt_wrapper(f"{{{{template:{name}}}}}") == (
        templates_dir() / name).read_text(encoding="utf-8")


def test_a_missing_template_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r'^channels\.mine\.prompt_wrapper: template '
                                          r'"nope-404\.md" not found'):
        resolve_prompt_wrapper("{{template:nope-404.md}}", "mine")


def test_config_knows_every_registered_parser_name(
        load: Loader, warnings: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Config reads its parser names from the registry: a newly registered one is known."""
    monkeypatch.setitem(_REGISTRY, "house-style", get_parser("default"))
    load(project="channels:\n  codex: {output_parser: house-style}\n"
                 "  grok: {output_parser: house-styel}\n")
    assert [w for w in warnings if "output_parser" in w] == [
        "mmr: config channels.grok.output_parser: unknown output_parser 'house-styel'; "
        'using default (did you mean "house-style"?)']
