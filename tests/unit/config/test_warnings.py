"""Load-time warnings."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from mmr.config.loaded import WorkingTree, print_warning
from mmr.config.loader import load_config
from tests.unit.config.conftest import Loader


def test_secret_header_names_warn_once_per_load(load: Loader, warnings: list[str]) -> None:
    load(project="""\
        channels:
          h:
            kind: http
            endpoint: "http://h/v1/chat/completions"
            model: m
            endpoint_convention: openai-chat
            headers: {Authorization: "Bearer x", api_key_env: K, X-Trace: "1", X-API-Key: k}
          codex:
            headers: {Cookie: c}
        """)
    secret = [w for w in warnings if "literal" in w]
    assert secret == [
        '[mmr] warning: channel "codex" has a literal "Cookie" header. For HTTP channels in '
        "v3.30, move the secret to an env var and reference it via api_key_env.",
        '[mmr] warning: channel "h" has a literal "Authorization" header. For HTTP channels in '
        "v3.30, move the secret to an env var and reference it via api_key_env.",
        '[mmr] warning: channel "h" has a literal "api_key_env" header. For HTTP channels in '
        "v3.30, move the secret to an env var and reference it via api_key_env.",
        '[mmr] warning: channel "h" has a literal "X-API-Key" header. For HTTP channels in '
        "v3.30, move the secret to an env var and reference it via api_key_env.",
    ]


def test_wrapper_without_prompt_token_warns(load: Loader, warnings: list[str]) -> None:
    loaded = load(project="channels:\n  codex: {prompt_wrapper: 'Review carefully.'}\n")
    assert loaded.channels["codex"].prompt_wrapper == "Review carefully."
    assert ("mmr: config channels.codex.prompt_wrapper has no {{prompt}}; the review content "
            "will not be sent") in warnings


def test_template_wrappers_do_not_warn(load: Loader, warnings: list[str]) -> None:
    load()
    assert warnings == []


def test_unknown_parser_name_warns_with_a_suggestion(load: Loader, warnings: list[str]) -> None:
    load(project="channels:\n  codex: {output_parser: defualt}\n"
                 "  grok: {output_parser: {then: gemnii}}\n")
    assert ("mmr: config channels.codex.output_parser: unknown output_parser 'defualt'; using "
            'default (did you mean "default"?)') in warnings
    assert any("channels.grok.output_parser: unknown output_parser 'gemnii'" in w
               for w in warnings)


def test_undispatchable_channel_name_warns(load: Loader, warnings: list[str]) -> None:
    load(project="channels:\n  'my bot': {enabled: false}\n")
    assert any('channel name "my bot" cannot be dispatched' in w for w in warnings)


def test_default_sink_prints_each_line_once_per_process(capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    print_warning("mmr: test warning 1234")
    print_warning("mmr: test warning 1234")
    assert capsys.readouterr().err == "mmr: test warning 1234\n"


def test_alias_warning_reaches_stderr_once_across_loads(
        project_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project_root / ".mmr.yaml").write_text("channels:\n  opc: {enabled: false}\n",
                                            encoding="utf-8")
    for _ in range(3):
        load_config(project_root, project_source=WorkingTree())
    err = capsys.readouterr().err
    assert err.count('config channel "opc" is an alias for "opencode"') == 1


def test_a_clean_load_does_not_import_rapidfuzz(tmp_path: Path) -> None:
    code = ("import sys; from pathlib import Path;"
            "from mmr.config.loader import load_config;"
            "from mmr.config.loaded import WorkingTree;"
            f"load_config(Path({str(tmp_path)!r}), project_source=WorkingTree());"
            "print('rapidfuzz' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "False"
