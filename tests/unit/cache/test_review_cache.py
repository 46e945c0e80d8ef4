"""The review cache's key and store: what misses, what expires, what survives concurrency."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mmr.cache.key import executable_identity, review_cache_key
from mmr.cache.store import ReviewCache

CHANNEL = {"command": "codex exec", "flags": ["--model", "o4"], "env": {"OPENAI_API_KEY": "sk-x"}}
PARSER = {"kind": "default"}
DAY = 86400.0


def key(**change: object) -> str:
    args: dict[str, object] = {"channel": CHANNEL, "prompt": "review this diff", "parser": PARSER,
                               "executable": "/usr/bin/codex:10:1", "mmr_version": "1.0"}
    args.update(change)
    return review_cache_key(**args)  # type: ignore[arg-type]


def test_every_input_of_a_run_changes_the_key() -> None:
    base = key()
    changed = [
        key(prompt="review this diff!"),
        key(channel={**CHANNEL, "flags": ["--model", "o5"]}),
        key(parser={"kind": "default-last"}),
        key(executable="/usr/bin/codex:11:1"),
        key(mmr_version="1.1"),
    ]
    assert len({base, *changed}) == 6
    assert key() == base


def test_the_key_does_not_depend_on_secret_values() -> None:
    other_secret = {**CHANNEL, "env": {"OPENAI_API_KEY": "sk-y"}}
    assert key(channel=other_secret) == key()


def test_executable_identity_follows_the_file(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    cli = tmp_path / "reviewer"
    cli.write_text("#!/bin/sh\n")
    cli.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    first = executable_identity("reviewer")
    assert first is not None and first.startswith(str(cli.resolve()))
    cli.write_text("#!/bin/sh\necho upgraded\n")
    assert executable_identity("reviewer") != first
    assert executable_identity("missing") is None


def test_a_stored_reply_is_read_back_until_it_expires(tmp_path: Path) -> None:
    cache = ReviewCache(tmp_path, max_age_s=7 * DAY)
    k = key()
    assert cache.get(k) is None
    assert cache.put(k, channel="codex", output='{"findings": []}', job_id="mmr-1", now=1000.0)
    hit = cache.get(k, now=1000.0 + DAY)
    assert hit is not None and (hit.output, hit.job_id, hit.channel) == (
        '{"findings": []}', "mmr-1", "codex")
    assert cache.get(k, now=1000.0 + 8 * DAY) is None


def test_max_age_zero_turns_the_cache_off(tmp_path: Path) -> None:
    cache = ReviewCache(tmp_path, max_age_s=0)
    assert not cache.put(key(), channel="codex", output="x", job_id="mmr-1")
    assert cache.get(key()) is None
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("damage", [b"", b"{", b"[]", b'{"version": 1}',
                                    b'{"version": 1, "key": "other"}'])
def test_a_damaged_entry_is_a_miss(tmp_path: Path, damage: bytes) -> None:
    cache = ReviewCache(tmp_path, max_age_s=DAY)
    k = key()
    cache.put(k, channel="codex", output="x", job_id="mmr-1")
    (tmp_path / k[:2] / f"{k}.json").write_bytes(damage)
    assert cache.get(k) is None


def test_the_size_cap_prunes_the_least_recently_used(tmp_path: Path) -> None:
    cache = ReviewCache(tmp_path, max_age_s=DAY, max_bytes=3000)
    keys = [key(prompt=str(n)) for n in range(5)]
    for n, k in enumerate(keys):
        cache.put(k, channel="c", output="x" * 900, job_id=f"mmr-{n}")
        path = tmp_path / k[:2] / f"{k}.json"
        os.utime(path, (1_000_000 + n, 1_000_000 + n))
    assert cache.get(keys[0], now=1_000_000.0) is not None  # used: now the most recent
    removed = cache.prune(now=1_000_010.0)
    assert sum(stat.st_size for _, stat in cache.entries()) <= 3000
    assert removed == 3
    left = {k for k in keys if (tmp_path / k[:2] / f"{k}.json").exists()}
    assert left == {keys[0], keys[4]}


def test_prune_drops_expired_entries(tmp_path: Path) -> None:
    cache = ReviewCache(tmp_path, max_age_s=DAY)
    cache.put(key(), channel="c", output="x", job_id="mmr-1")
    [(path, _)] = list(cache.entries())
    os.utime(path, (0, 0))
    assert cache.prune() == 1
    assert list(cache.entries()) == []


_WORKER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from mmr.cache.store import ReviewCache
    root, n = Path(sys.argv[1]), int(sys.argv[2])
    cache = ReviewCache(root, max_age_s=86400, max_bytes=10**9)
    keys = [format(i, "064x") for i in range(5)]
    for round in range(40):
        k = keys[(n + round) % 5]
        cache.put(k, channel="c", output=("worker %d round %d " % (n, round)) * 200,
                  job_id="mmr-%d" % n)
        hit = cache.get(keys[round % 5])
        if hit is not None and not hit.output.startswith("worker "):
            print("CORRUPT", flush=True)
        cache.prune()
""")


def test_twenty_concurrent_reviews_never_read_a_torn_entry(tmp_path: Path) -> None:
    workers = [subprocess.Popen([sys.executable, "-c", _WORKER, str(tmp_path), str(n)],
                                stdout=subprocess.PIPE, text=True) for n in range(20)]
    outputs = [w.communicate(timeout=300)[0] for w in workers]
    assert [w.returncode for w in workers] == [0] * 20
    assert "CORRUPT" not in "".join(outputs)
    cache = ReviewCache(tmp_path, max_age_s=DAY)
    for path, _ in cache.entries():
        record = json.loads(path.read_bytes())
        assert cache.get(record["key"]) is not None
    assert not [p for p in tmp_path.rglob("*") if p.is_file() and not p.name.endswith(".json")]
