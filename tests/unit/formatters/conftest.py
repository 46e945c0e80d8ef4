"""Formatter tests render with a pinned mmr version, so a release does not rewrite goldens."""

from __future__ import annotations

import pytest

PINNED_VERSION = "1.2.3"


@pytest.fixture(autouse=True)
def pinned_version(monkeypatch: pytest.MonkeyPatch) -> str:
    """``mmr.__version__`` as the SARIF driver reports it in golden files."""
    monkeypatch.setattr("mmr.__version__", PINNED_VERSION)
    return PINNED_VERSION
