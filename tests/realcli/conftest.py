"""The real reviewer CLIs, installed once per run from npm at pinned versions, run by the
installed ``mmr`` against the loopback model APIs of :mod:`tests.realcli.mockapi`.

The CLIs go into ``$MMR_REALCLI_CACHE`` (default ``$XDG_CACHE_HOME/mmr-realcli`` or
``~/.cache/mmr-realcli``), in a directory named after the pins, so a second run installs
nothing (:func:`tests.realcli.npm_tools.install_once`). Without node/npm the tests fail:
install them (``.ci/run`` does) or deselect them with ``-m "not realcli"``. Every CLI's
home and config directories are temp dirs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.builtin_channels import ENABLED_BUILTINS
from tests.integration.git_repo_builder import GitRepo
from tests.realcli.mockapi import MockApi, MockServer
from tests.realcli.npm_tools import install_once

#: Exact versions the contract tests pin (docs/channels.md lists them too). claude-code
#: declares node >= 22 but its bin is a native executable, so it runs under Node 20.
PINS = {
    "@anthropic-ai/claude-code": "2.1.332",
    "@openai/codex": "0.171.0",
    "opencode-ai": "1.18.33",
}


def _cache_root() -> Path:
    if explicit := os.environ.get("MMR_REALCLI_CACHE"):
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mmr-realcli"


def _key() -> str:
    return "-".join(f"{name.rsplit('/', 1)[-1]}@{v}" for name, v in sorted(PINS.items()))


@pytest.fixture(scope="session")
def cli_bin() -> Path:
    """The ``node_modules/.bin`` holding the pinned claude, codex and opencode."""
    specs = [f"{name}@{version}" for name, version in PINS.items()]
    return install_once(_cache_root() / _key(), specs) / ".bin"


@pytest.fixture(scope="session")
def opencode_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """opencode's XDG cache, shared by the run: it installs its provider package there."""
    return tmp_path_factory.mktemp("opencode-cache")


@pytest.fixture
def api() -> Iterator[MockApi]:
    with MockServer() as server:
        yield server


@dataclass
class Run:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


@dataclass
class RealEnv:
    """The environment ``mmr`` (and so every CLI it starts) runs in, and a repo to review."""

    env: dict[str, str]
    home: Path
    repo: GitRepo
    api: MockApi

    def mmr(self, *args: str, timeout: float = 120) -> Run:
        done = subprocess.run([sys.executable, "-m", "mmr", *args], cwd=self.repo.root,
                              env=self.env, capture_output=True, text=True, timeout=timeout,
                              check=False)
        return Run(done.returncode, done.stdout, done.stderr)

    def review(self, channel: str, *extra: str) -> dict[str, Any]:
        run = self.mmr("review", "--sync", "--quiet", "--format", "json", "--channels",
                       channel, *extra)
        assert run.code in (0, 2, 3), run.err
        entry: dict[str, Any] = run.json()["per_channel"][channel]
        return entry

    def doctor_row(self, channel: str) -> dict[str, Any]:
        """``channel``'s row of ``mmr doctor --format json``."""
        run = self.mmr("doctor", "--format", "json")
        rows = {row["name"]: row for row in run.json()}
        assert channel in rows, run.out
        row: dict[str, Any] = rows[channel]
        return row

    def only(self, channel: str, **channel_config: Any) -> None:
        """A user config where ``channel`` is the one enabled built-in."""
        doc: dict[str, Any] = {
            "version": 1,
            "channels": {channel: {"enabled": True, **channel_config}},
            "channels_disabled": [c for c in ENABLED_BUILTINS if c != channel],
            "defaults": {"min_completed_channels": 1},
        }
        path = Path(self.env["MMR_HOME"]) / "config.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(yaml.safe_dump(doc, sort_keys=False))


@pytest.fixture
def real(tmp_path: Path, cli_bin: Path, api: MockApi, opencode_cache: Path) -> RealEnv:
    home = tmp_path / "home"
    home.mkdir()
    keep = {k: v for k, v in os.environ.items()
            if k in ("LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT", "GIT_CONFIG_NOSYSTEM", "PYTHONPATH")
            or k.startswith("GIT_AUTHOR") or k.startswith("GIT_COMMITTER")}
    env = {
        **keep,
        "PATH": os.pathsep.join([str(cli_bin), str(Path(sys.executable).parent),
                                 os.environ.get("PATH", "")]),
        "HOME": str(home), "MMR_HOME": str(home / ".mmr"), "NO_COLOR": "1",
        "XDG_CONFIG_HOME": str(home / ".config"), "XDG_DATA_HOME": str(home / ".local/share"),
        "XDG_STATE_HOME": str(home / ".local/state"), "XDG_CACHE_HOME": str(home / ".cache"),
        # claude: the loopback Messages API, no retries, no update or telemetry traffic.
        "CLAUDE_CONFIG_DIR": str(home / ".claude"), "ANTHROPIC_BASE_URL": api.base,
        "ANTHROPIC_API_KEY": "sk-ant-test-key", "CLAUDE_CODE_MAX_RETRIES": "0",
        "DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        # codex: a custom provider in $CODEX_HOME/config.toml reads its key from MOCK_API_KEY.
        "CODEX_HOME": str(home / ".codex"), "MOCK_API_KEY": "sk-mock-test-key",
        # opencode: no update check, no models.dev fetch, no LSP downloads.
        "OPENCODE_DISABLE_AUTOUPDATE": "1", "OPENCODE_DISABLE_MODELS_FETCH": "1",
        "OPENCODE_DISABLE_LSP_DOWNLOAD": "1", "OPENCODE_DISABLE_SHARE": "1",
    }
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text(
        'model = "mock-model"\nmodel_provider = "mock"\n\n[model_providers.mock]\n'
        f'name = "Mock"\nbase_url = "{api.base}/v1"\nenv_key = "MOCK_API_KEY"\n'
        'wire_api = "responses"\nrequest_max_retries = 0\nstream_max_retries = 0\n')
    opencode_dir = home / ".config" / "opencode"
    opencode_dir.mkdir(parents=True)
    (opencode_dir / "opencode.json").write_text(json.dumps({
        "model": "mock/mock-model", "autoupdate": False, "share": "disabled",
        "provider": {"mock": {"npm": "@ai-sdk/openai-compatible", "name": "Mock",
                              "options": {"baseURL": f"{api.base}/v1",
                                          "apiKey": "{env:MOCK_API_KEY}"},
                              "models": {"mock-model": {"name": "Mock"}}}},
    }))
    (home / ".cache").mkdir()
    (home / ".cache" / "opencode").symlink_to(opencode_cache, target_is_directory=True)
    repo = GitRepo.create(tmp_path / "repo", {"app.py": "def divide(a, b):\n    return 0\n"})
    repo.write({"app.py": "def divide(a, b):\n    return a / b\n"})
    return RealEnv(env, home, repo, api)
