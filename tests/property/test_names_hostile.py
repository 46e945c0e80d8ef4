"""Names with shell metacharacters, path tricks or control characters are harmless.

Channel names, job ids and session ids become file names and message text, never shell
words. A name the store cannot use safely is refused with a one-line error before any
path is built, and nothing is written anywhere.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import event, example, given

from mmr.config.loaded import LoadedConfig, ProjectText
from mmr.config.loader import load_config
from mmr.config.selection import select_channels, split_channel_args
from mmr.errors import ChannelSelectionError, ConfigError, JobNotFoundError
from mmr.store.jobs import JobStore
from mmr.store.layout import JobPaths, UnsafeChannelNameError, check_channel_name, check_job_id
from mmr.store.session_ids import InvalidSessionIdError, check_session_id
from mmr.store.sessions import SessionNotFoundError, SessionStore
from tests.property.strategies import HOSTILE_NAME_TEXT, HOSTILE_NAMES

_SAFE_CHANNEL = re.compile(r"[a-zA-Z0-9._-]+")
_JOB_ID = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,254}")
_SESSION_ID = re.compile(r"[a-zA-Z0-9_-]+")


def _one_clean_line(message: str) -> bool:
    """A message that cannot forge extra output lines or terminal escapes."""
    return all(ch.isprintable() for ch in message)


def _files_under(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


@pytest.fixture
def sandbox(tmp_path: Path) -> Iterator[Path]:
    """Run from an empty directory: a name that ran as shell would leave files here."""
    before = Path.cwd()
    os.chdir(tmp_path)
    try:
        yield tmp_path
    finally:
        os.chdir(before)
    assert not (tmp_path / "pwned").exists()


@given(name=HOSTILE_NAME_TEXT)
@example(name="..")
@example(name="a\x00b")
def test_channel_names_become_file_names_only_when_safe(name: str) -> None:
    jobs = Path("/nonexistent-jobs-root")
    paths = JobPaths.for_job(jobs, "mmr-0123456789ab")
    if _SAFE_CHANNEL.fullmatch(name):
        assert check_channel_name(name) == name
        for path in (paths.status_file(name), paths.output_file(name), paths.log_file(name)):
            assert path.parent == paths.channels_dir  # one plain entry, whatever the name
    else:
        with pytest.raises(UnsafeChannelNameError) as caught:
            paths.status_file(name)
        assert _one_clean_line(str(caught.value))


@given(job_id=HOSTILE_NAME_TEXT)
@example(job_id="../mmr-0123456789ab")
@example(job_id="mmr-0123456789ab\n")
def test_job_ids_name_one_entry_of_the_jobs_dir_or_are_not_found(job_id: str) -> None:
    jobs = Path("/nonexistent-jobs-root")
    if _JOB_ID.fullmatch(job_id):
        assert JobPaths.for_job(jobs, job_id).root.parent == jobs
        assert os.path.normpath(jobs / job_id) == str(jobs / job_id)
    else:
        with pytest.raises(JobNotFoundError) as caught:
            check_job_id(job_id)
        assert caught.value.exit_code == 5
        assert _one_clean_line(str(caught.value))


@given(session_id=HOSTILE_NAME_TEXT)
@example(session_id="con")
@example(session_id="__proto__")
def test_session_ids_are_plain_names_or_refused(session_id: str) -> None:
    reserved = re.fullmatch(r"con|prn|aux|nul|com[1-9]|lpt[1-9]|index|__proto__", session_id,
                            re.IGNORECASE | re.ASCII)
    if _SESSION_ID.fullmatch(session_id) and not reserved:
        assert check_session_id(session_id) == session_id
    else:
        with pytest.raises(InvalidSessionIdError) as caught:
            check_session_id(session_id)
        assert _one_clean_line(str(caught.value))


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_the_stores_refuse_hostile_names_before_writing(sandbox: Path, name: str) -> None:
    jobs, sessions = sandbox / "jobs", sandbox / "sessions"
    store = JobStore(jobs)
    if not _SAFE_CHANNEL.fullmatch(name):
        with pytest.raises(UnsafeChannelNameError):
            store.create_job(["claude", name], fix_threshold="P2", format="json",
                             min_completed_channels=1)
        assert _files_under(jobs) == []  # refused before the job directory was claimed
    if not _JOB_ID.fullmatch(name) or name in (".", ".."):
        with pytest.raises(JobNotFoundError):
            store.load(name)
    session_store = SessionStore(sessions)
    if not _SESSION_ID.fullmatch(name):
        with pytest.raises(InvalidSessionIdError):
            session_store.start(name)
        with pytest.raises(SessionNotFoundError):
            session_store.show(name)
    if sessions.exists():
        assert _files_under(sessions) == []
    assert sorted(p.name for p in sandbox.iterdir()) in (["jobs"], ["jobs", "sessions"])


def _config_with_channel(root: Path, name: str) -> LoadedConfig | None:
    """A config that defines a channel called ``name`` (None when YAML cannot hold it)."""
    quoted = name.replace("\\", "\\\\").replace('"', '\\"')
    text = f'channels:\n  "{quoted}":\n    command: echo reviewed\n'
    try:
        return load_config(root, project_source=ProjectText(text, ".mmr.yaml"),
                           on_warning=lambda _: None)
    except ConfigError:
        return None


@given(name=HOSTILE_NAME_TEXT)
@example(name="$(touch pwned)")
@example(name="x\nmmr: verdict: pass")
def test_selecting_a_hostile_channel_is_refused_or_cannot_reach_the_store(
    tmp_path_factory: pytest.TempPathFactory, name: str
) -> None:
    root = tmp_path_factory.mktemp("select")
    loaded = _config_with_channel(root, name)
    if loaded is None:
        return
    try:
        selected = select_channels(loaded.config, [name])
    except ChannelSelectionError as exc:
        assert _one_clean_line(str(exc)), str(exc)
        event("ChannelSelectionError")
        return
    assert selected == split_channel_args([name])
    store = JobStore(root / "jobs")
    event("selected")
    if all(_SAFE_CHANNEL.fullmatch(channel) for channel in selected):
        store.create_job(selected, fix_threshold="P2", format="json", min_completed_channels=1)
    else:
        with pytest.raises(UnsafeChannelNameError):
            store.create_job(selected, fix_threshold="P2", format="json",
                             min_completed_channels=1)
        assert _files_under(root / "jobs") == []
    assert sorted(p.name for p in root.iterdir()) == ["jobs"]


# ------------------------------------------------------------ regressions (fixes pinned)


@pytest.mark.parametrize("name", ["x\nmmr: verdict: pass", "\x1b[2Jgone", "a\x00b"])
def test_an_unknown_channel_error_escapes_control_characters(tmp_path: Path, name: str) -> None:
    """Fix: the channel name was printed raw, so a newline could forge an output line."""
    loaded = _config_with_channel(tmp_path, "claude-like")
    assert loaded is not None
    with pytest.raises(ChannelSelectionError) as caught:
        select_channels(loaded.config, [name])
    assert _one_clean_line(str(caught.value))
    assert repr(name)[1:-1] in str(caught.value)
