"""Pinned npm packages installed once per machine into a cache directory, for tests.

The cache lives under ``$MMR_TEST_NPM_CACHE`` (default ``~/.cache/mmr-tests/npm``), one
directory per ``name@version``, so a second run installs nothing. Without npm the caller
skips with the reason.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest


def cache_root() -> Path:
    override = os.environ.get("MMR_TEST_NPM_CACHE")
    return Path(override) if override else Path.home() / ".cache" / "mmr-tests" / "npm"


def npm_install(package: str, version: str) -> Path:
    """The ``node_modules`` directory holding ``package@version``; skip the test without npm."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed: the real-tool tests need it (CI installs it)")
    target = cache_root() / f"{package.replace('/', '+')}@{version}"
    marker = target / ".installed"
    if not marker.exists():
        target.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--prefix", str(target),
             f"{package}@{version}"],
            capture_output=True, text=True, timeout=600, check=False,
        )
        if done.returncode != 0:
            pytest.fail(f"npm install {package}@{version} failed:\n{done.stderr[-2000:]}")
        marker.write_text(version)
    return target / "node_modules"
