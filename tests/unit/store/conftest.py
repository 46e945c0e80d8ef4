"""Shared fixtures for the job store tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from mmr.store.jobs import JobStore


@pytest.fixture
def store(tmp_path: Path) -> JobStore:
    return JobStore(tmp_path / "mmr" / "jobs")
