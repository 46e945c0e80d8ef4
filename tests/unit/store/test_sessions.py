"""Session store: ids, file formats, start/show/list/end, linking."""

from __future__ import annotations

import json
import os
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from mmr.config.paths import sessions_dir
from mmr.errors import MmrError
from mmr.store.session_ids import (
    SESSION_ID_FLAG_MESSAGE,
    SESSION_ID_RULE,
    InvalidSessionIdError,
    check_session_id,
    is_valid_session_id,
)
from mmr.store.sessions import (
    CorruptSessionIndexError,
    SessionError,
    SessionExistsError,
    SessionLinkError,
    SessionNotFoundError,
    SessionStore,
    link_review_job,
)

T0 = datetime(2026, 5, 1, 10, 0, 0, 250000, tzinfo=UTC)
T1 = datetime(2026, 5, 2, 10, 0, 0, tzinfo=UTC)


@pytest.fixture
def sessions(tmp_path: Path) -> SessionStore:
    return SessionStore(tmp_path / "mmr" / "sessions")


def _json(path: Path) -> object:
    return json.loads(path.read_text())


# -- ids -------------------------------------------------------------------------------

@pytest.mark.parametrize("session_id", [
    "s1", "my-session_2", "com0", "lpt10", "INDEX2", "a", "A-b_C", "console", "x" * 200,
])
def test_valid_session_ids(session_id: str) -> None:
    assert is_valid_session_id(session_id)
    assert check_session_id(session_id) == session_id


@pytest.mark.parametrize("session_id", [
    "CON", "con", "prn", "AUX", "nul", "com1", "COM9", "lpt1", "Lpt9", "index", "Index",
    "__proto__", "__PROTO__", "has.dots", "has spaces", "../x", "..", ".", "a/b", "/etc",
    "", "a\x00b", "ok\n", "caf\u00e9", "\u212aey",  # Kelvin sign must not pass as "k"
])
def test_invalid_session_ids(session_id: str) -> None:
    assert not is_valid_session_id(session_id)
    with pytest.raises(InvalidSessionIdError) as caught:
        check_session_id(session_id)
    assert str(caught.value).startswith("Invalid session id: ")
    assert str(caught.value).endswith(f" - must match {SESSION_ID_RULE}")
    assert caught.value.exit_code == 1


def test_rule_text_is_the_reference_wording() -> None:
    assert SESSION_ID_RULE == ("^[a-zA-Z0-9_-]+$ and not a reserved name (con, prn, aux, nul, "
                               "com1-9, lpt1-9, index, __proto__)")
    assert f"Invalid session id. Must match {SESSION_ID_RULE}" == SESSION_ID_FLAG_MESSAGE


def test_nul_in_id_is_escaped_in_the_message() -> None:
    with pytest.raises(InvalidSessionIdError) as caught:
        check_session_id("a\x00b\nc")
    assert "\x00" not in str(caught.value) and "\n" not in str(caught.value)
    assert "a\\x00b\\nc" in str(caught.value)


@pytest.mark.parametrize("session_id", ["../escape", "/abs/path", "a\x00b", "sub/dir", ".."])
def test_escaping_ids_never_touch_the_disk(sessions: SessionStore, tmp_path: Path,
                                           session_id: str) -> None:
    for call in (lambda: sessions.start(session_id),
                 lambda: sessions.add_job(session_id, "mmr-000000000000"),
                 lambda: sessions.end(session_id)):
        with pytest.raises(InvalidSessionIdError):
            call()
    with pytest.raises(SessionNotFoundError, match="Session not found"):
        sessions.show(session_id)
    assert not (tmp_path / "mmr").exists()
    assert not (tmp_path / "escape.json").exists()


# -- start / show / list / end ---------------------------------------------------------

def test_start_writes_the_reference_format(sessions: SessionStore) -> None:
    record = sessions.start("s1", now=T0)
    expected = {"session_id": "s1", "created_at": "2026-05-01T10:00:00.250Z", "jobs": [],
                "rounds": 0}
    assert record.to_json_dict() == expected
    text = (sessions.root / "s1.json").read_text()
    # JSON.stringify(record, null, 2): 2-space indent, key order, no trailing newline.
    assert text == json.dumps(expected, indent=2)
    assert list(_json(sessions.root / "s1.json")) == ["session_id", "created_at", "jobs",
                                                        "rounds"]
    assert _json(sessions.root / "index.json") == {"s1": expected}
    assert not list(sessions.root.glob("*.tmp")) and not list(sessions.root.glob("*.lock"))


def test_second_start_fails_without_touching_the_record(sessions: SessionStore) -> None:
    sessions.start("s1", now=T0)
    sessions.add_job("s1", "mmr-aaaaaaaaaaaa", 2)
    before = (sessions.root / "s1.json").read_bytes()
    index_before = (sessions.root / "index.json").read_bytes()
    with pytest.raises(SessionExistsError, match=r"^Session already exists: s1$"):
        sessions.start("s1", now=T1)
    assert (sessions.root / "s1.json").read_bytes() == before
    assert (sessions.root / "index.json").read_bytes() == index_before
    assert not list(sessions.root.glob("*.tmp"))


def test_show_returns_the_file_record(sessions: SessionStore) -> None:
    sessions.start("s1", now=T0)
    assert sessions.show("s1").session_id == "s1"
    with pytest.raises(SessionNotFoundError, match=r"^Session not found: nope$"):
        sessions.show("nope")


@pytest.mark.parametrize("content", ["{not json", "[]", '{"session_id": "s1"}', ""])
def test_show_of_a_malformed_file_is_not_found(sessions: SessionStore, content: str) -> None:
    sessions.root.mkdir(parents=True)
    (sessions.root / "s1.json").write_text(content)
    with pytest.raises(SessionNotFoundError, match=r"^Session not found: s1$"):
        sessions.show("s1")


def test_show_of_a_symlinked_file_is_not_found(sessions: SessionStore, tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.json"
    target.write_text(json.dumps({"session_id": "s1", "created_at": "x", "jobs": [],
                                  "rounds": 0}))
    sessions.root.mkdir(parents=True)
    (sessions.root / "s1.json").symlink_to(target)
    with pytest.raises(SessionNotFoundError):
        sessions.show("s1")


def test_list_reads_only_the_index_newest_first(sessions: SessionStore) -> None:
    assert sessions.list_sessions() == []
    sessions.start("old", now=T0)
    sessions.start("new", now=T1)
    (sessions.root / "old.json").unlink()  # the index alone is listed
    assert [r.session_id for r in sessions.list_sessions()] == ["new", "old"]


@pytest.mark.parametrize("content", ["{broken", "[]", "null", '"text"'])
def test_corrupt_index_fails_every_mutation_and_is_left_alone(
        sessions: SessionStore, content: str) -> None:
    sessions.root.mkdir(parents=True)
    index = sessions.root / "index.json"
    index.write_text(content)
    for call in (sessions.list_sessions, lambda: sessions.start("s1"),
                 lambda: sessions.end("s1"), lambda: sessions.add_job("s1", "mmr-a")):
        with pytest.raises(CorruptSessionIndexError):
            call()
    assert index.read_text() == content
    assert not (sessions.root / "s1.json").exists()


def test_end_removes_file_and_index_entry(sessions: SessionStore) -> None:
    sessions.start("s1", now=T0)
    sessions.start("s2", now=T1)
    sessions.end("s1")
    assert not (sessions.root / "s1.json").exists()
    assert list(_json(sessions.root / "index.json")) == ["s2"]  # type: ignore[arg-type]
    with pytest.raises(SessionNotFoundError, match=r"^Session not found: s1$"):
        sessions.end("s1")


def test_end_removes_a_stale_index_entry(sessions: SessionStore) -> None:
    sessions.start("s1", now=T0)
    (sessions.root / "s1.json").unlink()
    sessions.end("s1")
    assert _json(sessions.root / "index.json") == {}


def test_end_removes_a_null_index_entry(sessions: SessionStore) -> None:
    sessions.root.mkdir(parents=True)
    (sessions.root / "index.json").write_text('{"s1": null, "s2": {}}')
    sessions.end("s1")
    assert _json(sessions.root / "index.json") == {"s2": {}}


def test_end_removes_a_file_missing_from_the_index(sessions: SessionStore) -> None:
    sessions.start("s1", now=T0)
    (sessions.root / "index.json").write_text("{}")
    sessions.end("s1")
    assert not (sessions.root / "s1.json").exists()


def test_end_of_an_invalid_id_is_an_invalid_id_error(sessions: SessionStore) -> None:
    with pytest.raises(InvalidSessionIdError):
        sessions.end("CON")


# -- linking ---------------------------------------------------------------------------

def test_add_job_auto_creates_and_tracks_the_largest_round(sessions: SessionStore) -> None:
    sessions.add_job("s1", "mmr-aaaaaaaaaaaa", 3, now=T0)
    sessions.add_job("s1", "mmr-bbbbbbbbbbbb", 1)
    record = sessions.add_job("s1", "mmr-cccccccccccc", 2)
    assert record.jobs == ["mmr-aaaaaaaaaaaa", "mmr-bbbbbbbbbbbb", "mmr-cccccccccccc"]
    assert record.rounds == 3  # the largest round ever linked, not a count
    on_disk = _json(sessions.root / "s1.json")
    assert on_disk == record.to_json_dict()
    assert _json(sessions.root / "index.json") == {"s1": on_disk}
    assert sessions.show("s1").created_at == "2026-05-01T10:00:00.250Z"


def test_rounds_may_repeat_and_go_down(sessions: SessionStore) -> None:
    sessions.add_job("s1", "mmr-aaaaaaaaaaaa", 2)
    record = sessions.add_job("s1", "mmr-aaaaaaaaaaaa", 2)
    assert record.jobs == ["mmr-aaaaaaaaaaaa", "mmr-aaaaaaaaaaaa"]
    assert record.rounds == 2


@pytest.mark.parametrize("bad_round", [0, -1, 2.5, True])
def test_add_job_rejects_bad_rounds(sessions: SessionStore, bad_round: object) -> None:
    with pytest.raises(MmrError, match="round must be >= 1"):
        sessions.add_job("s1", "mmr-aaaaaaaaaaaa", bad_round)  # type: ignore[arg-type]
    assert not (sessions.root / "s1.json").exists()


def test_reference_written_files_are_read_and_extended(sessions: SessionStore) -> None:
    # A record the reference wrote: fractional rounds and an unknown key survive a link.
    sessions.root.mkdir(parents=True)
    ref_record = {"session_id": "s1", "created_at": "2026-05-01T10:00:00.000Z",
                  "jobs": ["mmr-aaaaaaaaaaaa"], "rounds": 2.5, "note": "kept"}
    (sessions.root / "s1.json").write_text(json.dumps(ref_record, indent=2))
    (sessions.root / "index.json").write_text(json.dumps({"s1": ref_record, "zz": {"x": 1}}))
    record = sessions.add_job("s1", "mmr-bbbbbbbbbbbb", 2)
    assert record.rounds == 2.5
    assert _json(sessions.root / "s1.json") == {**ref_record,
                                                 "jobs": ["mmr-aaaaaaaaaaaa", "mmr-bbbbbbbbbbbb"]}
    index = _json(sessions.root / "index.json")
    assert index["zz"] == {"x": 1}  # type: ignore[index]  # never dropped on rewrite
    assert [r.session_id for r in sessions.list_sessions()] == ["s1"]  # invalid entry skipped


def test_a_malformed_session_file_makes_linking_fail(sessions: SessionStore) -> None:
    sessions.root.mkdir(parents=True)
    (sessions.root / "s1.json").write_text("{oops")
    with pytest.raises(SessionError, match="malformed"):
        sessions.add_job("s1", "mmr-aaaaaaaaaaaa", 1)
    assert (sessions.root / "s1.json").read_text() == "{oops"


def test_link_failure_discards_the_job_and_names_both(sessions: SessionStore) -> None:
    sessions.root.mkdir(parents=True)
    (sessions.root / "index.json").write_text("[")
    discarded: list[str] = []
    with pytest.raises(SessionLinkError) as caught:
        link_review_job(sessions, "s1", "mmr-aaaaaaaaaaaa", None, discard_job=discarded.append)
    assert discarded == ["mmr-aaaaaaaaaaaa"]
    assert str(caught.value).startswith("Failed to link job mmr-aaaaaaaaaaaa to session s1: ")
    assert caught.value.exit_code == 1


def test_link_review_job_defaults_to_round_one(sessions: SessionStore) -> None:
    record = link_review_job(sessions, "s1", "mmr-aaaaaaaaaaaa", None, discard_job=pytest.fail)
    assert (record.jobs, record.rounds) == (["mmr-aaaaaaaaaaaa"], 1)


# -- locks -----------------------------------------------------------------------------

def test_a_stale_lock_older_than_five_seconds_is_recovered(sessions: SessionStore) -> None:
    sessions.root.mkdir(parents=True)
    for name in ("s1.session-lock.lock", "index.json.lock"):
        lock = sessions.root / name
        lock.mkdir()
        old = time.time() - 10
        os.utime(lock, (old, old))
    started = time.monotonic()
    sessions.add_job("s1", "mmr-aaaaaaaaaaaa", 1)
    assert time.monotonic() - started < 2
    assert not (sessions.root / "s1.session-lock.lock").exists()


def test_a_live_lock_times_out_with_a_clear_error(sessions: SessionStore,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("mmr.store.sessions.LOCK_TIMEOUT_SECONDS", 0.2)
    sessions.root.mkdir(parents=True)
    (sessions.root / "s1.session-lock.lock").mkdir()
    with pytest.raises(MmrError, match="Timed out waiting for lock"):
        sessions.add_job("s1", "mmr-aaaaaaaaaaaa", 1)
    assert not (sessions.root / "s1.json").exists()


def test_mmr_home_moves_the_sessions_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MMR_HOME", str(tmp_path / "state"))
    SessionStore(sessions_dir()).start("s1")
    assert (tmp_path / "state" / "sessions" / "s1.json").is_file()
