"""Ack files on disk: format, reading rules, scopes, symlinks."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from mmr.acks.record import (
    AckRecord,
    InvalidFindingKeyError,
    ack_record_problem,
    check_finding_key,
    new_ack_record,
)
from mmr.acks.store import PROJECT_DISABLED, AckStore, AckStoreError
from mmr.config.paths import mmr_home

from .ack_helpers import CREATED, ack_for, reconciled

KEY_A = "a" * 40
KEY_B = "b" * 40


def _record(key: str = KEY_A, **extra: object) -> dict[str, object]:
    return {"finding_key": key, "normalized_location": "src/a.ts",
            "description_shingle": ["abcde"], "created_at": "2026-01-01T00:00:00.000Z", **extra}


@pytest.fixture
def store(tmp_path: Path) -> AckStore:
    return AckStore(user_root=tmp_path / "mmr", project_root=tmp_path / "repo")


def _write(directory: Path, name: str, value: object) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(value if isinstance(value, str) else json.dumps(value))
    return path


def test_add_writes_the_reference_layout_in_the_project(store: AckStore) -> None:
    finding = reconciled("./src/Retry.ts:42", "No backoff between retries")
    path = store.add(ack_for(finding, reason="accepted: callers retry at most 3 times"),
                     "project")
    assert path == store.project_root / ".mmr" / "acks" / f"{finding.finding_key}.json"  # type: ignore[operator]
    text = path.read_text()
    assert not text.endswith("\n")
    data = json.loads(text)
    assert list(data) == ["finding_key", "normalized_location", "description_shingle", "reason",
                          "created_at"]
    assert data["normalized_location"] == "src/retry.ts"
    assert data["created_at"] == "2026-01-01T00:00:00.000Z"
    assert text == json.dumps(data, indent=2, ensure_ascii=False)


def test_reason_is_omitted_when_absent(store: AckStore) -> None:
    path = store.add(ack_for(reconciled("a.py:1", "Something odd here")), "user")
    assert path.parent == store.user_root / "acks"
    assert "reason" not in json.loads(path.read_text())


def test_files_are_byte_compatible_with_the_reference(store: AckStore,
                                                      fixtures_dir: Path) -> None:
    vectors = json.loads((fixtures_dir / "stable-id-vectors.json").read_text())["vectors"]
    emoji = next(v for v in vectors if v["name"] == "desc-emoji-surrogate-split")
    record = {"finding_key": emoji["finding_key"],
              "normalized_location": emoji["normalized_location"],
              "description_shingle": emoji["description_shingle"],
              "created_at": "2026-11-29T21:19:21.745Z"}
    # What JSON.stringify(record, null, 2) writes: raw UTF-8, lone surrogates as \udXXX.
    reference_bytes = json.dumps(record, indent=2, ensure_ascii=False).encode(
        "utf-8", "backslashreplace")
    assert b"\\ud83d" in reference_bytes
    path = store.add(AckRecord.model_validate(record), "user")
    assert path.read_bytes() == reference_bytes
    store.invalidate("user")
    [loaded] = store.read_scope("user").records
    assert loaded.description_shingle == emoji["description_shingle"]


def test_a_reference_written_file_with_extra_keys_is_honoured(store: AckStore) -> None:
    _write(store.user_root / "acks", f"{KEY_A}.json", _record(extra_field={"x": 1}))
    [record] = store.read_scope("user").records
    assert record.finding_key == KEY_A
    assert record.to_json_dict()["extra_field"] == {"x": 1}


@pytest.mark.parametrize(("value", "reason"), [
    ("{nope", "not valid JSON"),
    ([1, 2], "not a JSON object"),
    (_record(KEY_B), "finding_key does not match the file name"),
    (_record(normalized_location=3), "missing or mistyped fields"),
    (_record(description_shingle="abcde"), "missing or mistyped fields"),
    (_record(description_shingle=["ok", 5]), "missing or mistyped fields"),
    (_record(created_at=None), "missing or mistyped fields"),
    (_record(reason=None), "missing or mistyped fields"),
    (_record(reason=7), "missing or mistyped fields"),
])
def test_invalid_records_are_skipped_with_a_reason(store: AckStore, value: object,
                                                   reason: str) -> None:
    path = _write(store.user_root / "acks", f"{KEY_A}.json", value)
    contents = store.read_scope("user")
    assert contents.records == ()
    assert [(s.path, s.reason) for s in contents.skipped] == [(path, reason)]


def test_symlinks_large_files_and_other_names_are_skipped(store: AckStore,
                                                          tmp_path: Path) -> None:
    acks = store.user_root / "acks"
    target = _write(tmp_path, "target.json", _record(KEY_A))
    acks.mkdir(parents=True)
    (acks / f"{KEY_A}.json").symlink_to(target)
    _write(acks, f"{KEY_B}.json", {**_record(KEY_B), "pad": "x" * (256 * 1024)})
    (acks / ("c" * 40 + ".json")).mkdir()
    _write(acks, "README.json", _record(KEY_A))
    _write(acks, f"{KEY_A.upper()}.json", _record(KEY_A))
    _write(acks, f"{'d' * 40}.json.1a2b3c.tmp", _record("d" * 40))
    contents = store.read_scope("user")
    assert contents.records == ()
    assert sorted(s.reason for s in contents.skipped) == [
        "larger than 256 KiB", "not a regular file", "symlink"]


def test_records_come_in_file_name_order_and_are_cached(store: AckStore) -> None:
    for key in (KEY_B, KEY_A):
        _write(store.user_root / "acks", f"{key}.json", _record(key))
    assert [r.finding_key for r in store.read_scope("user").records] == [KEY_A, KEY_B]
    (store.user_root / "acks" / f"{KEY_A}.json").unlink()
    assert len(store.read_scope("user").records) == 2  # cached after the first read
    store.invalidate("user")
    assert len(store.read_scope("user").records) == 1


def test_list_merges_scopes_project_replacing_user_in_place(store: AckStore) -> None:
    key_c = "c" * 40
    for key in (KEY_A, KEY_B, key_c):
        _write(store.user_root / "acks", f"{key}.json", _record(key, reason=f"user {key[0]}"))
    _write(store.project_root / ".mmr" / "acks", f"{KEY_B}.json",  # type: ignore[operator]
           _record(KEY_B, reason="project b"))
    _write(store.project_root / ".mmr" / "acks", f"{'0' * 40}.json",  # type: ignore[operator]
           _record("0" * 40, reason="project 0"))
    listed = [(r.finding_key[0], r.reason) for r in store.list_all()]
    assert listed == [("a", "user a"), ("b", "project b"), ("c", "user c"), ("0", "project 0")]


def test_remove_touches_one_scope_and_reports_existence(store: AckStore) -> None:
    record = AckRecord.model_validate(_record(KEY_A))
    store.add(record, "user")
    store.add(record, "project")
    assert store.remove(KEY_A, "user") is True
    assert store.remove(KEY_A, "user") is False
    assert [r.finding_key for r in store.list_all()] == [KEY_A]  # project copy remains


def test_add_invalidates_the_cache(store: AckStore) -> None:
    assert store.read_scope("user").records == ()
    store.add(AckRecord.model_validate(_record(KEY_A)), "user")
    assert len(store.read_scope("user").records) == 1


@pytest.mark.parametrize("key", ["../../etc/passwd", "A" * 40, "a" * 39, "a" * 40 + "\x00",
                                 "/abs/" + "a" * 35, ""])
def test_invalid_keys_never_reach_the_disk(store: AckStore, key: str) -> None:
    with pytest.raises(InvalidFindingKeyError) as caught:
        store.remove(key, "user")
    assert str(caught.value) == f"Invalid finding_key: {key} — must match ^[a-f0-9]{{40}}$"
    with pytest.raises(InvalidFindingKeyError):
        store.add({**_record(), "finding_key": key}, "user")
    with pytest.raises(InvalidFindingKeyError):
        check_finding_key(key)
    assert not store.user_root.exists()


def test_add_validates_the_full_shape_before_touching_the_disk(store: AckStore) -> None:
    with pytest.raises(AckStoreError,
                       match=f"^Invalid ack record for {KEY_A}: missing or mistyped fields$"):
        store.add(_record(created_at=5), "user")
    assert not store.user_root.exists()


def test_add_refuses_to_write_through_a_symlink(store: AckStore, tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    acks = store.user_root / "acks"
    acks.mkdir(parents=True)
    (acks / f"{KEY_A}.json").symlink_to(victim)
    with pytest.raises(AckStoreError, match="Refusing to write ack through a symlink"):
        store.add(AckRecord.model_validate(_record(KEY_A)), "user")
    assert victim.read_text() == "precious"


def test_a_symlinked_project_mmr_dir_escaping_the_root_is_refused(store: AckStore,
                                                                   tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    _write(outside / "acks", f"{KEY_A}.json", _record(KEY_A))
    store.project_root.mkdir()  # type: ignore[union-attr]
    (store.project_root / ".mmr").symlink_to(outside)  # type: ignore[operator]
    message = "ack project directory escapes its root via a symlinked ancestor"
    with pytest.raises(AckStoreError, match=message):
        store.read_scope("project")
    with pytest.raises(AckStoreError, match=message):
        store.add(AckRecord.model_validate(_record(KEY_B)), "project")
    with pytest.raises(AckStoreError, match=message):
        store.remove(KEY_A, "project")
    assert (outside / "acks" / f"{KEY_A}.json").exists()
    assert not (outside / "acks" / f"{KEY_B}.json").exists()


def test_a_symlinked_acks_dir_inside_the_root_is_allowed(store: AckStore) -> None:
    real = store.project_root / "kept-acks"  # type: ignore[operator]
    _write(real, f"{KEY_A}.json", _record(KEY_A))
    (store.project_root / ".mmr").mkdir()  # type: ignore[operator]
    (store.project_root / ".mmr" / "acks").symlink_to(real)  # type: ignore[operator]
    assert [r.finding_key for r in store.read_scope("project").records] == [KEY_A]


def test_a_user_acks_symlink_out_of_the_mmr_root_is_refused(store: AckStore,
                                                            tmp_path: Path) -> None:
    store.user_root.mkdir()
    (tmp_path / "elsewhere").mkdir()
    (store.user_root / "acks").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(AckStoreError, match="ack user directory escapes its root"):
        store.read_scope("user")


def test_without_a_project_root_project_scope_is_disabled(tmp_path: Path) -> None:
    store = AckStore(user_root=tmp_path / "mmr")
    assert store.read_scope("project").records == ()
    with pytest.raises(AckStoreError, match=f"^{re.escape(PROJECT_DISABLED)}$"):
        store.add(AckRecord.model_validate(_record()), "project")


def test_unreadable_scope_directory_is_an_error(store: AckStore) -> None:
    store.user_root.mkdir()
    (store.user_root / "acks").write_text("a file where the directory should be")
    with pytest.raises(AckStoreError, match="cannot read ack directory"):
        store.read_scope("user")


def test_user_acks_follow_mmr_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MMR_HOME", str(tmp_path / "state"))
    store = AckStore(user_root=mmr_home())
    path = store.add(AckRecord.model_validate(_record()), "user")
    assert path.parent == tmp_path / "state" / "acks"


def test_new_ack_record_normalises_the_location() -> None:
    record = new_ack_record(KEY_A, "  ./SRC/Auth.ts:90:4 ", ["abcde"], now=CREATED)
    assert record.normalized_location == "src/auth.ts"
    assert record.reason is None
    assert ack_record_problem(record.to_json_dict(), KEY_A) is None
