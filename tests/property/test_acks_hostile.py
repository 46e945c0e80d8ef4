"""Hostile ack files never crash the ack readers.

A pull request can add ``.mmr/acks/<key>.json`` with any bytes. Reading a scope (the
working tree) or a trusted ref ends in records and skipped files, never an exception.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from mmr.acks.store import AckStore
from mmr.trust.trusted_files import read_project_acks_at_ref
from tests.property.strategies import JSON_VALUES, REPLYISH

KEY = "a" * 40
_VALID = {"finding_key": KEY, "normalized_location": "src/a.py", "description_shingle": ["abcde"],
          "created_at": "2026-01-01T00:00:00.000Z"}
#: Ack files that once crashed a reader, or nearly: nesting, huge numbers, bad bytes.
WORST_ACKS: dict[str, bytes] = {
    "10k [": b"[" * 10_000,
    "10k nested objects": b'{"a":' * 10_000 + b"1" + b"}" * 10_000,
    "10k-digit number": b'{"finding_key":"' + KEY.encode() + b'","x":' + b"9" * 10_000 + b"}",
    "invalid UTF-8": b'{"finding_key":"' + KEY.encode() + b'","reason":"\xff\xfe"}',
    "NUL": b"\x00" * 100,
    "1e999999 fields": json.dumps({**_VALID, "created_at": 1}).encode().replace(
        b"1}", b"1e999999}"),
}

ACK_BYTES = st.one_of(
    st.binary(max_size=300),
    REPLYISH.map(lambda text: text.encode("utf-8", "surrogatepass")),
    st.fixed_dictionaries({}, optional=dict.fromkeys(_VALID, JSON_VALUES)).map(
        lambda value: json.dumps({**value, "finding_key": KEY}).encode()),
    st.sampled_from(list(WORST_ACKS.values())),
)


@given(data=ACK_BYTES)
@example(data=WORST_ACKS["10k ["])
def test_a_scope_of_hostile_ack_files_reads_as_records_and_skips(
    tmp_path_factory: pytest.TempPathFactory, data: bytes
) -> None:
    base = tmp_path_factory.mktemp("acks")
    directory = base / "project" / ".mmr" / "acks"
    directory.mkdir(parents=True)
    (directory / f"{KEY}.json").write_bytes(data)
    (directory / f"{'b' * 40}.json").write_bytes(json.dumps({**_VALID, "finding_key": "b" * 40})
                                                 .encode())
    contents = AckStore(base / "user", base / "project").read_scope("project")
    assert len(contents.records) + len(contents.skipped) == 2
    assert "b" * 40 in {record.finding_key for record in contents.records}
    assert all(skip.reason.strip() for skip in contents.skipped)


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


@pytest.mark.parametrize("case", list(WORST_ACKS))
def test_hostile_ack_files_at_a_trusted_ref_are_skipped(tmp_path: Path, case: str) -> None:
    _git(tmp_path, "init", "-q", "-b", "main")
    acks = tmp_path / ".mmr" / "acks"
    acks.mkdir(parents=True)
    (acks / f"{KEY}.json").write_bytes(WORST_ACKS[case])
    (acks / f"{'b' * 40}.json").write_text(json.dumps({**_VALID, "finding_key": "b" * 40}))
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-q", "-m", "acks")
    found = read_project_acks_at_ref(tmp_path, "main")
    assert "b" * 40 in {ack.finding_key for ack in found}
    store = AckStore(tmp_path / "user", tmp_path)
    assert "b" * 40 in {r.finding_key for r in store.read_project_at_ref("main").records}


# ------------------------------------------------------------ regressions (fixes pinned)


def test_a_deeply_nested_ack_file_is_skipped_not_raised(tmp_path: Path) -> None:
    """Fix: ``json.loads`` raised RecursionError, which the reader did not catch."""
    directory = tmp_path / ".mmr" / "acks"
    directory.mkdir(parents=True)
    (directory / f"{KEY}.json").write_bytes(WORST_ACKS["10k ["])
    contents = AckStore(tmp_path / "user", tmp_path).read_scope("project")
    assert [skip.reason for skip in contents.skipped] == ["not valid JSON"]
