"""Known ``--version`` lines, per executable, under ``<mmr home>/cache/cli-versions.json``.

A review records which CLI versions reviewed it (:mod:`mmr.dispatch.versions`), but
probing means starting every reviewer CLI a second time while the reviews start, which
on a small machine competes with them for the CPU. The line is kept per executable file,
keyed as the review cache keys it (resolved path, size and mtime): upgrading or replacing
the CLI changes the key and the next review probes it again. Only successful probes are
kept. The file is a cache: a missing, unreadable or malformed one is simply empty, and
losing a write costs one probe.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path

from mmr.cache.key import executable_identity
from mmr.config.paths import mmr_home
from mmr.fs import atomic_write_json, ensure_private_dir, read_bytes_nofollow

CACHE_NAME = "cli-versions.json"
#: Entries kept (most recently probed last); a machine has a handful of reviewer CLIs.
MAX_ENTRIES = 64


def cache_path() -> Path:
    return mmr_home() / "cache" / CACHE_NAME


def load() -> dict[str, str]:
    """``{executable key: version line}``; empty when the cache is missing or malformed."""
    try:
        raw = json.loads(read_bytes_nofollow(cache_path()))
    except (OSError, ValueError):
        return {}
    if not isinstance(raw, dict):
        return {}
    return {k: v for k, v in raw.items() if isinstance(k, str) and isinstance(v, str)}


def lookup(tokens: Iterable[str]) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """For ``tokens``: the cached versions, the keys of the ones to probe, and the cache."""
    known = load()
    hits: dict[str, str] = {}
    misses: dict[str, str] = {}
    for token in tokens:
        key = executable_identity(token)
        if key is not None and key in known:
            hits[token] = known[key]
        elif key is not None:
            misses[token] = key
    return hits, misses, known


def save(known: Mapping[str, str], found: Mapping[str, str]) -> None:
    """Write ``known`` updated with ``found`` (best effort: a cache write never fails a run)."""
    merged = {k: v for k, v in known.items() if k not in found}
    merged.update(found)
    kept = dict(list(merged.items())[-MAX_ENTRIES:])
    with contextlib.suppress(OSError):
        path = cache_path()
        ensure_private_dir(path.parent)
        atomic_write_json(path, kept, durable=False)
