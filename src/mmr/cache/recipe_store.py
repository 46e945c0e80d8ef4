"""Where early-start recipes live, and reading and writing them (:mod:`mmr.cache.recipe`).

``$MMR_HOME/cache/early/<key>.json``: written atomically, mode 0600 in a 0700 directory;
read back only from a regular file (no symlink) that is this user's own and that nobody
else may write, and only when it is exactly a recipe of that key.
"""

from __future__ import annotations

import json
import os
import stat
from contextlib import suppress
from pathlib import Path

from mmr.cache.recipe import Recipe, parse_recipe
from mmr.fs import atomic_write_bytes, ensure_private_dir, read_bytes_nofollow

MAX_RECIPE_BYTES = 4 * 1024 * 1024
#: Recipes kept: the key hashes the whole environment, so a new shell writes a new one;
#: past this many the least recently written go (nothing else prunes them).
MAX_RECIPES = 64


def recipe_path(home: Path, key: str) -> Path:
    if len(key) != 64 or not all(c in "0123456789abcdef" for c in key):
        raise ValueError(f"not a recipe key: {key!r}")
    return home / "cache" / "early" / f"{key}.json"


def save_recipe(home: Path, recipe: Recipe) -> None:
    """Write ``recipe`` atomically, mode 0600 (a cache: no fsync)."""
    path = recipe_path(home, recipe.key)
    ensure_private_dir(path.parent)
    data = json.dumps(recipe.to_json(), ensure_ascii=True, sort_keys=True).encode("ascii")
    atomic_write_bytes(path, data, durable=False)
    _drop_oldest(path.parent)


def _drop_oldest(directory: Path) -> None:
    try:
        entries = [(entry.stat(follow_symlinks=False).st_mtime_ns, entry.path)
                   for entry in os.scandir(directory) if entry.name.endswith(".json")]
    except OSError:
        return
    for _, stale in sorted(entries)[:-MAX_RECIPES]:
        with suppress(OSError):
            Path(stale).unlink()


def load_recipe(home: Path, key: str) -> Recipe | None:
    """The recipe of ``key``, or None when there is none or it is not exactly a recipe."""
    path = recipe_path(home, key)
    try:
        if not (_private(path.parent) and _private(path)):
            return None
        data = read_bytes_nofollow(path, MAX_RECIPE_BYTES)  # a FIFO there: an error, no hang
        return parse_recipe(json.loads(data), key)
    except (OSError, ValueError, TypeError, KeyError):
        return None


def _private(path: Path) -> bool:
    """Owned by this user, writable by nobody else, not a symlink."""
    info = path.lstat()
    return (not stat.S_ISLNK(info.st_mode) and info.st_uid == os.getuid()
            and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH))
