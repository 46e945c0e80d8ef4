"""The early start's key and eligibility (issue 19): what must change the key does."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from mmr.config.paths import user_config_path
from mmr.review import early
from mmr.trust.modes import TrustContext, TrustFlags
from mmr.trust.trusted_files import ProjectConfigText

ARGV = ["--base", "main", "--sync"]


def _trust(**changes: Any) -> TrustContext:
    base = TrustContext(
        mode="base-ref", trusted_ref="main", project_root=Path("/repo"), flags=TrustFlags(),
        project_config=ProjectConfigText("channels: {}\n", "main:.mmr.yaml"),
        load_project_config=True, project_acks_source="base-ref", warnings=())
    return dataclasses.replace(base, **changes)


def test_the_key_is_stable_for_the_same_setup() -> None:
    assert early.early_key(ARGV, Path("/repo"), _trust()) == early.early_key(
        list(ARGV), Path("/repo"), _trust())


@pytest.mark.parametrize("change", [
    {"argv": [*ARGV, "--focus", "x"]},
    {"cwd": Path("/repo/src")},
    {"trust": {"mode": "untrusted-head", "trusted_ref": None}},
    {"trust": {"trusted_ref": "other"}},
    {"trust": {"project_config": ProjectConfigText("channels: {a: {}}\n", "main:.mmr.yaml")}},
    {"trust": {"project_config": None}},
    {"trust": {"project_root": Path("/elsewhere")}},
    {"env": ("PATH", "/somewhere/else")},
    {"env": ("NEW_VARIABLE", "1")},
    {"user_config": b"version: 1\n"},
])
def test_anything_that_decides_the_dispatch_changes_the_key(
        change: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    before = early.early_key(ARGV, Path("/repo"), _trust())
    if "env" in change:
        monkeypatch.setenv(*change["env"])
    if "user_config" in change:
        user_config_path().parent.mkdir(parents=True, exist_ok=True)
        user_config_path().write_bytes(change["user_config"])
    after = early.early_key(change.get("argv", ARGV), change.get("cwd", Path("/repo")),
                            _trust(**change.get("trust", {})))
    assert after != before


def test_a_user_config_edit_changes_the_key() -> None:
    user_config_path().parent.mkdir(parents=True, exist_ok=True)
    user_config_path().write_text("version: 1\n")
    before = early.early_key(ARGV, Path("/repo"), _trust())
    user_config_path().write_text("version: 1\n# edited\n")
    assert early.early_key(ARGV, Path("/repo"), _trust()) != before


SYNC = {"sync": True, "dry_run": False, "pr": None, "diff": None, "session": None,
        "round_number": None}


@pytest.mark.parametrize("change", [
    {"sync": False}, {"dry_run": True}, {"pr": 5}, {"diff": "-"}, {"session": "s1"},
    {"round_number": 2},
])
def test_only_a_plain_sync_review_starts_early(change: dict[str, Any]) -> None:
    assert early.eligible(SYNC, {})
    assert early.eligible({**SYNC, "diff": "change.patch"}, {})
    assert not early.eligible({**SYNC, **change}, {})


def test_mmr_early_start_0_turns_it_off() -> None:
    assert not early.eligible(SYNC, {"MMR_EARLY_START": "0"})
    assert early.eligible(SYNC, {"MMR_EARLY_START": "1"})
