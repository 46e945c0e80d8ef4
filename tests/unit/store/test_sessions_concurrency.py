"""Concurrent links to one session never lose a job or a round."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from mmr.store.sessions import SessionStore

_WORKER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from mmr.store.sessions import SessionStore

    root, worker, count = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    store = SessionStore(root)
    for i in range(count):
        store.add_job("shared", f"mmr-{worker:06x}{i:06x}", worker * count + i + 1)
""")


def _assert_complete(root: Path, expected_jobs: set[str], expected_rounds: int) -> None:
    record = json.loads((root / "shared.json").read_text())
    assert len(record["jobs"]) == len(expected_jobs)
    assert set(record["jobs"]) == expected_jobs
    assert record["rounds"] == expected_rounds
    assert json.loads((root / "index.json").read_text())["shared"] == record
    leftovers = [p.name for p in root.iterdir() if p.name.endswith((".tmp", ".lock"))]
    assert leftovers == []


def test_threads_linking_one_session_lose_nothing(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    jobs = [f"mmr-{i:012x}" for i in range(40)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(lambda pair: store.add_job("shared", pair[1], pair[0] + 1),
                      enumerate(jobs)))
    _assert_complete(store.root, set(jobs), 40)


def test_processes_linking_one_session_lose_nothing(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    workers, count = 4, 8
    procs = [subprocess.Popen([sys.executable, "-c", _WORKER, str(root), str(w), str(count)])
             for w in range(workers)]
    assert [p.wait(timeout=60) for p in procs] == [0] * workers
    expected = {f"mmr-{w:06x}{i:06x}" for w in range(workers) for i in range(count)}
    _assert_complete(root, expected, workers * count)
    assert SessionStore(root).show("shared").rounds == workers * count
