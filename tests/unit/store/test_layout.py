"""Job ids and channel names are checked on the strings, before any path is built."""

from __future__ import annotations

from pathlib import Path

import pytest

from mmr.errors import JobNotFoundError
from mmr.store.layout import (
    JobPaths,
    UnsafeChannelNameError,
    check_channel_name,
    check_job_id,
    compensating_name,
    is_strict_job_id,
    new_job_id,
)


def test_new_ids_are_mmr_plus_12_lowercase_hex_and_differ() -> None:
    ids = {new_job_id() for _ in range(500)}
    assert len(ids) == 500
    assert all(is_strict_job_id(job_id) for job_id in ids)


@pytest.mark.parametrize("job_id", ["mmr-a1b2c3", "mmr-ABCDEF012345", "mmr-0123456789ab"])
def test_loadable_ids_include_non_strict_plain_names(job_id: str) -> None:
    assert check_job_id(job_id) == job_id


@pytest.mark.parametrize(
    "job_id",
    ["../x", "..", ".", "", "/etc", "/tmp/mmr-0123456789ab", "a/b", "mmr-0123\x00456789ab",
     ".hidden", "mmr-01\n23", "x" * 300, "mmr-ab\\cd"],
)
def test_ids_that_could_leave_the_jobs_dir_are_not_found(job_id: str) -> None:
    with pytest.raises(JobNotFoundError, match=r"^Job not found: "):
        check_job_id(job_id)


def test_not_found_message_escapes_control_characters() -> None:
    with pytest.raises(JobNotFoundError) as info:
        check_job_id("bad\x00id")
    assert str(info.value) == "Job not found: bad\\x00id"


@pytest.mark.parametrize("job_id", ["mmr-0123456789a", "mmr-0123456789abc", "mmr-0123456789AB"])
def test_strict_pattern_is_exact(job_id: str) -> None:
    assert not is_strict_job_id(job_id)


@pytest.mark.parametrize("name", ["codex", "compensating-codex", "my_linter.v2", "A-9", ".."])
def test_safe_channel_names(name: str) -> None:
    assert check_channel_name(name) == name


@pytest.mark.parametrize("name", ["", "a/b", "../x", "a b", "x\x00", "é", "a:b"])
def test_unsafe_channel_names(name: str) -> None:
    with pytest.raises(UnsafeChannelNameError, match=r"^Unsafe channel name: "):
        check_channel_name(name)


def test_channel_files_stay_inside_the_channels_dir(tmp_path: Path) -> None:
    paths = JobPaths.for_job(tmp_path, "mmr-0123456789ab")
    assert paths.status_file("codex") == tmp_path / "mmr-0123456789ab/channels/codex.status.json"
    assert paths.status_file("..").parent == paths.channels_dir
    with pytest.raises(UnsafeChannelNameError):
        paths.log_file("../../x")
    assert compensating_name("grok") == "compensating-grok"
