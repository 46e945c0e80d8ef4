"""A job store that cannot be written is a clear error before any channel runs.

mmr runs as root in CI, where permission bits stop nothing, so the store is made unusable
by the path itself: ``MMR_HOME`` under a regular file (ENOTDIR), ``MMR_HOME`` that *is* a
regular file, and a jobs directory that is a dangling symlink (refused: the store never
writes through a link). The channels come from the committed ``.mmr.yaml`` (the user
config lives under the broken ``MMR_HOME`` too). Expected, with and without ``--sync``:
exit 1, one line naming the path and the fix, no traceback, and no fake ever started.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from tests.fakes.plugin import FakeCliFactory
from tests.integration.faults.conftest import BUILTIN_ENABLED, CLEAN, RunMmr
from tests.integration.git_repo_builder import GitRepo


def _under_a_file(tmp: Path) -> Path:
    (tmp / "plain-file").write_text("not a directory\n")
    return tmp / "plain-file" / "mmr"


def _is_a_file(tmp: Path) -> Path:
    (tmp / "plain-file").write_text("not a directory\n")
    return tmp / "plain-file"


def _dangling_jobs_link(tmp: Path) -> Path:
    home = tmp / "state"
    home.mkdir()
    (home / "jobs").symlink_to(tmp / "nowhere")
    return home


@pytest.mark.parametrize("sync", [["--sync"], []], ids=["sync", "default-mode"])
@pytest.mark.parametrize(("make_home", "why"), [
    (_under_a_file, "{home}: Not a directory"),
    (_is_a_file, "{jobs}: Not a directory"),
    (_dangling_jobs_link, "refusing to use {jobs}: it is a symlink"),
], ids=["under-a-file", "is-a-file", "dangling-jobs-symlink"])
def test_unusable_store_exits_1_before_dispatch(
        *, tmp_path: Path, fake_cli: FakeCliFactory, run_mmr: RunMmr, sync: list[str],
        make_home: Callable[[Path], Path], why: str) -> None:
    config = {"version": 1, "channels": {"rev1": {"command": "rev1"}, "rev2": {"command": "rev2"}},
              "channels_disabled": BUILTIN_ENABLED}
    repo = GitRepo.create(tmp_path / "repo", {"src/app.py": "one\n",
                                              ".mmr.yaml": yaml.safe_dump(config)})
    repo.write({"src/app.py": "two\n"})
    fakes = [fake_cli("rev1", stdout=CLEAN), fake_cli("rev2", stdout=CLEAN)]
    home = make_home(tmp_path)
    result = run_mmr("review", *sync, cwd=repo.root, env={"MMR_HOME": str(home)})
    assert result.code == 1
    assert result.out == ""
    [error] = [line for line in result.err.splitlines() if line.startswith("mmr: error:")]
    jobs = home / "jobs"
    detail = why.format(jobs=jobs, home=home)
    assert error == (f"mmr: error: cannot use the job store: {detail}. "
                     "Point MMR_HOME at a writable directory (default ~/.mmr)")
    assert "Traceback" not in result.err
    for fake in fakes:
        assert not fake.record_path.exists()  # never dispatched
