"""Template-named prompt wrappers and the parser names config knows about."""

from __future__ import annotations

import pytest

from mmr.config.schema import REGISTERED_PARSER_NAMES
from mmr.config.wrapper import resolve_prompt_wrapper, wrapper_template
from mmr.errors import ConfigError
from mmr.resources import templates_dir


def test_inline_wrappers_pass_through() -> None:
    assert wrapper_template("Review: {{prompt}}") is None
    assert resolve_prompt_wrapper("Review: {{prompt}}") == "Review: {{prompt}}"
    assert wrapper_template("x {{template:a.md}}") is None


def test_a_template_token_reads_the_shipped_template() -> None:
    shipped = sorted(p.name for p in templates_dir().glob("*.md"))
    if not shipped:
        pytest.skip("no templates shipped yet")
    name = shipped[0]
    assert wrapper_template(f"{{{{template:{name}}}}}") == name
    assert resolve_prompt_wrapper(f"{{{{template:{name}}}}}") == (
        templates_dir() / name).read_text(encoding="utf-8")


def test_a_missing_template_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r'^channels\.mine\.prompt_wrapper: template '
                                          r'"nope-404\.md" not found'):
        resolve_prompt_wrapper("{{template:nope-404.md}}", "mine")


def test_config_knows_the_registered_parser_names() -> None:
    registry = pytest.importorskip("mmr.parsers.registry")
    pytest.importorskip("mmr.parsers.builtin")
    assert set(registry.registered_names()) == set(REGISTERED_PARSER_NAMES)
