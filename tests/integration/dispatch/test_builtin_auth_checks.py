"""The built-in presets' auth checks against fake CLIs shaped like the real look-alikes
(issue 17): the npm ``grok`` is not xAI's, antigravity's check fails closed."""

from __future__ import annotations

from pathlib import Path

from mmr.config.loaded import WorkingTree
from mmr.config.loader import load_config
from mmr.dispatch.auth import check_channel
from tests.fakes.plugin import FakeCliFactory

NPM_GROK_HELP = "Usage: grok [options]\n  -p, --prompt <prompt>  single prompt, headless\n"
XAI_GROK_HELP = "Usage: grok [options]\n  --prompt-file <path>  read the prompt from a file\n"


def builtin(tmp_path: Path, name: str):  # type: ignore[no-untyped-def]
    return load_config(tmp_path, project_source=WorkingTree()).channels[name]


def test_the_npm_grok_is_not_taken_for_xais(tmp_path: Path, fake_cli: FakeCliFactory) -> None:
    # @vibe-kit/grok-cli: its `grok models` exits 0 (an interactive UI) whatever the login.
    fake_cli("grok", stdout=NPM_GROK_HELP)
    result = check_channel("grok", builtin(tmp_path, "grok"))
    assert result.status == "failed"
    assert result.recovery is not None
    assert "xAI" in result.recovery and "@vibe-kit/grok-cli" in result.recovery


def test_xais_grok_passes(tmp_path: Path, fake_cli: FakeCliFactory) -> None:
    fake_cli("grok", stdout=XAI_GROK_HELP)
    assert check_channel("grok", builtin(tmp_path, "grok")).status == "ok"


def test_antigravity_fails_closed_on_an_unexpected_answer(tmp_path: Path,
                                                          fake_cli: FakeCliFactory) -> None:
    fake_cli("agy", stdout="Welcome! Choose a theme (1-3):")
    assert check_channel("antigravity", builtin(tmp_path, "antigravity")).status == "failed"


def test_antigravity_passes_when_it_answers_ok(tmp_path: Path,
                                               fake_cli: FakeCliFactory) -> None:
    fake_cli("agy", stdout="ok")
    assert check_channel("antigravity", builtin(tmp_path, "antigravity")).status == "ok"


def test_antigravity_fails_when_it_exits_non_zero(tmp_path: Path,
                                                  fake_cli: FakeCliFactory) -> None:
    fake_cli("agy", stdout="ok", exit_code=3)
    assert check_channel("antigravity", builtin(tmp_path, "antigravity")).status == "failed"


def test_doc_conformance_names_a_source_that_exists(tmp_path: Path) -> None:
    auth = builtin(tmp_path, "doc-conformance").auth
    assert "@zigrivers/scaffold" not in auth.recovery  # the registry has no such package
    assert "github.com/zigrivers/scaffold" in auth.recovery
    assert "claude auth login" in auth.recovery
