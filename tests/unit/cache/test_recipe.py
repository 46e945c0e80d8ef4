"""Early-start recipes: written private, read back only when exactly a recipe (issue 19)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from mmr.cache.recipe import Recipe, RecipeChannel
from mmr.cache.recipe_store import MAX_RECIPES, load_recipe, recipe_path, save_recipe

KEY = "ab" * 32


def _recipe(**changes: Any) -> Recipe:
    channel = RecipeChannel(
        name="rev1", argv=("rev1", "--json"), env_set=(("X", "1"),), env_unset=("Y",),
        cwd=None, stderr="capture", max_capture_bytes=16, max_stderr_bytes=8,
        max_diff_lines=None, on_credentials="redact", diff_exclude=("*.lock",),
        wrapper="{{prompt}}", cache={"channel": {"command": "rev1"}, "parser": {"kind": "x"},
                                      "command": "rev1"})
    fields: dict[str, Any] = {
        "key": KEY, "diff_exclude": (), "max_diff_lines": 100, "review_criteria": ("a",),
        "template_criteria": (), "focus": None, "channels": (channel,),
        "cache": {"root": "/c", "max_age_s": 60.0, "max_bytes": 10}}
    return Recipe(**{**fields, **changes})


def test_a_saved_recipe_loads_back_and_is_private(tmp_path: Path) -> None:
    save_recipe(tmp_path, _recipe())
    path = recipe_path(tmp_path, KEY)
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.parent.stat().st_mode & 0o777 == 0o700
    assert load_recipe(tmp_path, KEY) == _recipe()
    assert load_recipe(tmp_path, "cd" * 32) is None


def _edit(tmp_path: Path, change: Any) -> None:
    import hashlib

    path = recipe_path(tmp_path, KEY)
    data = json.loads(path.read_text())
    change(data)
    body = {k: v for k, v in data.items() if k != "digest"}
    data["digest"] = hashlib.sha256(
        json.dumps(body, ensure_ascii=True, sort_keys=True).encode()).hexdigest()
    path.write_text(json.dumps(data))


@pytest.mark.parametrize("change", [
    lambda d: d.update(extra=1),
    lambda d: d.update(key="cd" * 32),
    lambda d: d.update(version=2),
    lambda d: d.update(channels=[]),
    lambda d: d["channels"][0].pop("argv"),
    lambda d: d["channels"][0].update(argv=[]),
    lambda d: d["channels"][0].update(argv=["rev1", 3]),
    lambda d: d["channels"][0].update(argv=["rev\0"]),
    lambda d: d["channels"][0].update(stderr="passthrough"),
    lambda d: d["channels"][0].update(on_credentials="leak"),
    lambda d: d["channels"][0].update(cwd="relative"),
    lambda d: d["channels"][0].update(env_set={"A=B": "1"}),
    lambda d: d["channels"][0].update(max_stderr_bytes=True),
    lambda d: d["channels"][0].update(max_capture_bytes=-1),
    lambda d: d["channels"][0].update(cache={"channel": {}}),
    lambda d: d.update(cache={"root": "/c", "max_age_s": 0, "max_bytes": 1}),
    lambda d: d.update(channels=[d["channels"][0], d["channels"][0]]),
], ids=lambda change: "")
def test_anything_but_the_exact_shape_is_no_recipe(tmp_path: Path, change: Any) -> None:
    save_recipe(tmp_path, _recipe())
    _edit(tmp_path, change)
    assert load_recipe(tmp_path, KEY) is None


def test_an_edit_that_did_not_come_from_mmr_is_no_recipe(tmp_path: Path) -> None:
    save_recipe(tmp_path, _recipe())
    path = recipe_path(tmp_path, KEY)
    path.write_text(path.read_text().replace('"rev1", "--json"', '"rev1", "--evil"'))
    assert load_recipe(tmp_path, KEY) is None


@pytest.mark.parametrize("mode", [0o620, 0o602])
def test_a_recipe_others_may_write_is_no_recipe(tmp_path: Path, mode: int) -> None:
    save_recipe(tmp_path, _recipe())
    recipe_path(tmp_path, KEY).chmod(mode)
    assert load_recipe(tmp_path, KEY) is None


def test_a_symlinked_recipe_is_no_recipe(tmp_path: Path) -> None:
    save_recipe(tmp_path, _recipe())
    path = recipe_path(tmp_path, KEY)
    real = tmp_path / "elsewhere.json"
    path.rename(real)
    path.symlink_to(real)
    assert load_recipe(tmp_path, KEY) is None


def test_only_the_newest_recipes_are_kept(tmp_path: Path) -> None:
    """Every new environment wrote a recipe and nothing removed them."""
    keys = [f"{i:064x}" for i in range(MAX_RECIPES + 3)]
    for index, key in enumerate(keys):
        save_recipe(tmp_path, _recipe(key=key))
        os.utime(recipe_path(tmp_path, key), ns=(index * 10**9, index * 10**9))
    save_recipe(tmp_path, _recipe(key=keys[-1]))  # the newest write prunes the rest

    kept = sorted(p.name for p in recipe_path(tmp_path, keys[0]).parent.iterdir())
    assert kept == sorted(f"{key}.json" for key in keys[-MAX_RECIPES:])
    assert load_recipe(tmp_path, keys[-1]) == _recipe(key=keys[-1])


def test_a_fifo_in_place_of_a_recipe_is_no_recipe_and_no_hang(tmp_path: Path) -> None:
    import signal

    save_recipe(tmp_path, _recipe())
    path = recipe_path(tmp_path, KEY)
    path.unlink()
    os.mkfifo(path, 0o600)

    def fail(signum: int, frame: object) -> None:
        raise AssertionError("blocked on the FIFO")

    previous = signal.signal(signal.SIGALRM, fail)
    signal.alarm(20)
    try:
        assert load_recipe(tmp_path, KEY) is None
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_a_recipe_over_the_size_limit_is_no_recipe(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from mmr.cache import recipe_store

    save_recipe(tmp_path, _recipe())
    size = recipe_path(tmp_path, KEY).stat().st_size
    monkeypatch.setattr(recipe_store, "MAX_RECIPE_BYTES", size - 1)
    assert load_recipe(tmp_path, KEY) is None
    monkeypatch.setattr(recipe_store, "MAX_RECIPE_BYTES", size)
    assert load_recipe(tmp_path, KEY) == _recipe()
