"""Helpers for config tests: write real user/project files, then load them."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mmr.config.loaded import LoadedConfig, ProjectSource, WorkingTree
from mmr.config.loader import load_config
from mmr.config.paths import user_config_path

Loader = Callable[..., LoadedConfig]
_WORKING_TREE = WorkingTree()


@pytest.fixture
def project_root(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


@pytest.fixture
def warnings() -> list[str]:
    return []


@pytest.fixture
def load(project_root: Path, warnings: list[str]) -> Loader:
    """``load(user=..., project=..., cli=..., source=...)``: YAML text is dedented first."""

    def _load(user: str | None = None, project: str | None = None, *,
              cli: dict[str, Any] | None = None,
              source: ProjectSource | None = _WORKING_TREE) -> LoadedConfig:
        if user is not None:
            path = user_config_path()
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(user), encoding="utf-8")
        if project is not None:
            (project_root / ".mmr.yaml").write_text(textwrap.dedent(project), encoding="utf-8")
        return load_config(project_root, project_source=source, cli_overrides=cli,
                           on_warning=warnings.append)

    return _load
