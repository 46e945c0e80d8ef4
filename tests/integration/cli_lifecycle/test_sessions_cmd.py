"""``mmr sessions start | list | show | end``."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from mmr.config.paths import mmr_home, sessions_dir
from mmr.store.sessions import SessionStore
from tests.integration.cli_lifecycle.conftest import RunMmr

INVALID_IDS = ["../x", "/tmp/abs", "a\x00b", "has.dots", "has spaces", "CON", "Index",
               "__proto__", ""]


def test_start_prints_and_stores_the_new_record(run_mmr: RunMmr) -> None:
    result = run_mmr("sessions", "start", "s1")

    assert result.code == 0
    record = result.json()
    assert record == {"session_id": "s1", "created_at": record["created_at"],
                      "jobs": [], "rounds": 0}
    assert record["created_at"].endswith("Z")
    assert json.loads((sessions_dir() / "s1.json").read_text()) == record
    assert json.loads((sessions_dir() / "index.json").read_text()) == {"s1": record}


def test_start_twice_fails(run_mmr: RunMmr) -> None:
    first = run_mmr("sessions", "start", "s1")
    second = run_mmr("sessions", "start", "s1")

    assert second.code == 1
    assert "Session already exists: s1" in second.err
    assert second.out == ""
    assert json.loads((sessions_dir() / "s1.json").read_text()) == first.json()


@pytest.mark.parametrize("bad", INVALID_IDS)
def test_invalid_ids_are_refused_before_any_file_is_made(run_mmr: RunMmr, bad: str) -> None:
    before = sorted(p.name for p in mmr_home().rglob("*")) if mmr_home().exists() else []

    start = run_mmr("sessions", "start", bad)
    end = run_mmr("sessions", "end", bad)
    show = run_mmr("sessions", "show", bad)

    assert (start.code, end.code, show.code) == (1, 1, 1)
    assert "Invalid session id:" in start.err
    assert "must match ^[a-zA-Z0-9_-]+$" in start.err
    assert "Invalid session id:" in end.err
    assert "Session not found:" in show.err
    assert "\x00" not in start.err + end.err + show.err
    after = sorted(p.name for p in mmr_home().rglob("*")) if mmr_home().exists() else []
    assert [name for name in after if name not in before] in ([], ["sessions"])


def test_reserved_look_alikes_are_valid(run_mmr: RunMmr) -> None:
    for session_id in ("com0", "lpt10", "INDEX2"):
        assert run_mmr("sessions", "start", session_id).code == 0


def test_list_is_newest_first(run_mmr: RunMmr) -> None:
    store = SessionStore(sessions_dir())
    store.start("older", now=datetime(2026, 1, 1, tzinfo=UTC))
    store.start("newest", now=datetime(2026, 3, 1, tzinfo=UTC))
    store.start("middle", now=datetime(2026, 2, 1, tzinfo=UTC))

    result = run_mmr("sessions", "list")

    assert result.code == 0
    assert [r["session_id"] for r in result.json()] == ["newest", "middle", "older"]


def test_list_is_empty_without_sessions(run_mmr: RunMmr) -> None:
    result = run_mmr("sessions", "list")

    assert (result.code, result.out) == (0, "[]\n")


def test_list_fails_on_a_corrupt_index_and_leaves_it_alone(run_mmr: RunMmr) -> None:
    sessions_dir().mkdir(parents=True)
    (sessions_dir() / "index.json").write_text("[1, 2")

    result = run_mmr("sessions", "list")
    start = run_mmr("sessions", "start", "s1")

    assert (result.code, start.code) == (1, 1)
    assert "index.json" in result.err
    assert (sessions_dir() / "index.json").read_text() == "[1, 2"
    assert not (sessions_dir() / "s1.json").exists()


def test_show_prints_linked_jobs_and_rounds(run_mmr: RunMmr) -> None:
    store = SessionStore(sessions_dir())
    store.add_job("loop", "mmr-aaaaaaaaaaaa", 1)
    store.add_job("loop", "mmr-bbbbbbbbbbbb", 3)

    result = run_mmr("sessions", "show", "loop")

    assert result.code == 0
    assert result.json()["jobs"] == ["mmr-aaaaaaaaaaaa", "mmr-bbbbbbbbbbbb"]
    assert result.json()["rounds"] == 3


def test_show_unknown_and_malformed_sessions_are_not_found(run_mmr: RunMmr) -> None:
    sessions_dir().mkdir(parents=True)
    (sessions_dir() / "broken.json").write_text("{")

    missing = run_mmr("sessions", "show", "nope")
    broken = run_mmr("sessions", "show", "broken")

    assert (missing.code, broken.code) == (1, 1)
    assert "Session not found: nope" in missing.err
    assert "Session not found: broken" in broken.err


def test_end_deletes_the_file_and_the_index_entry(run_mmr: RunMmr) -> None:
    run_mmr("sessions", "start", "s1")
    run_mmr("sessions", "start", "s2")

    ended = run_mmr("sessions", "end", "s1")
    again = run_mmr("sessions", "end", "s1")

    assert ended.code == 0
    assert ended.json() == {"ended": "s1"}
    assert not (sessions_dir() / "s1.json").exists()
    assert list(json.loads((sessions_dir() / "index.json").read_text())) == ["s2"]
    assert again.code == 1
    assert "Session not found: s1" in again.err


def test_missing_subcommand_or_id_is_a_usage_error(run_mmr: RunMmr) -> None:
    bare = run_mmr("sessions")
    no_id = run_mmr("sessions", "start")

    assert (bare.code, no_id.code) == (1, 1)
    assert "mmr: error: missing argument" in no_id.err
