"""Pinned npm packages installed once per machine into a cache directory, for tests.

Each set of pins gets its own directory, installed into a staging directory and renamed
into place under a lock file, so that parallel test workers (pytest-xdist) wait for the
first worker's install and reuse it instead of running npm into the same directory, and
an interrupted install leaves nothing that looks finished. Without node and npm the test
fails and says so: install them (``.ci/run`` does) or deselect the tests with
``-m "not realcli"``.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

import pytest

_INSTALL_TIMEOUT_S = 600


def cache_root() -> Path:
    override = os.environ.get("MMR_TEST_NPM_CACHE")
    return Path(override) if override else Path.home() / ".cache" / "mmr-tests" / "npm"


def npm_install(package: str, version: str) -> Path:
    """The ``node_modules`` directory holding ``package@version``."""
    target = cache_root() / f"{package.replace('/', '+')}@{version}"
    return install_once(target, [f"{package}@{version}"])


def install_once(target: Path, specs: Sequence[str]) -> Path:
    """``target/node_modules`` with ``specs`` installed; the first caller installs them."""
    modules = target / "node_modules"
    if modules.is_dir():
        return modules
    npm, node = shutil.which("npm"), shutil.which("node")
    if npm is None or node is None:
        pytest.fail("node and npm are needed to install the real third-party programs these "
                    "tests run; install them, or deselect the tests with -m 'not realcli'")
    target.parent.mkdir(parents=True, exist_ok=True)
    with (target.parent / f".{target.name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if modules.is_dir():  # another worker installed it while this one waited
            return modules
        staging = Path(tempfile.mkdtemp(prefix=".install-", dir=target.parent))
        done = subprocess.run(
            [npm, "install", "--prefix", str(staging), "--no-audit", "--no-fund", "--no-save",
             "--engine-strict=false", "--loglevel=error", *specs],
            capture_output=True, text=True, timeout=_INSTALL_TIMEOUT_S, check=False,
        )
        if done.returncode != 0:
            shutil.rmtree(staging, ignore_errors=True)
            pytest.fail(f"npm install {' '.join(specs)} failed:\n{done.stderr[-2000:]}")
        if target.exists():  # a stale, unfinished install from before the lock existed
            shutil.rmtree(target)
        staging.rename(target)
    return modules
