"""``mmr.dispatch.versions``: each CLI's ``--version`` line, and recording it on a job."""

from __future__ import annotations

import json
import time
from pathlib import Path

import anyio
import pytest

from mmr.config.channel_schema import HttpChannel, SubprocessChannel
from mmr.config.paths import jobs_dir
from mmr.dispatch.versions import (
    cli_versions_async,
    record_cli_versions,
    token_version,
    version_token,
)
from mmr.store.jobs import JobStore
from mmr.store.records import ChannelJobEntry
from tests.fakes.plugin import FakeCliFactory


def cli_version(channel: SubprocessChannel | HttpChannel) -> str | None:
    token = version_token(channel)
    return None if token is None else anyio.run(token_version, token)


def cli_versions(channels: dict[str, SubprocessChannel]) -> dict[str, str]:
    return anyio.run(cli_versions_async, channels)


def channel(command: str) -> SubprocessChannel:
    return SubprocessChannel.model_validate({"command": command})


def test_first_non_blank_line_of_stdout(fake_cli: FakeCliFactory):
    fake = fake_cli("fake-cli", stdout="\n  fake-cli 3.1.4 (build 9)  \nmore detail\n",
                    stderr="warning: noise")
    assert cli_version(channel("fake-cli exec --flag")) == "fake-cli 3.1.4 (build 9)"
    assert fake.last_call(include_version_probes=True)["argv"] == ["--version"]


def test_the_probe_runs_without_mmrs_own_gh_token(fake_cli: FakeCliFactory,
                                                  monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("MMR_GH_TOKEN", "ghs_job")
    fake = fake_cli("probed", stdout="probed 1.0")
    assert cli_version(channel("probed")) == "probed 1.0"
    env = fake.last_call(include_version_probes=True)["env"]
    assert "MMR_GH_TOKEN" not in env and "PATH" in env


def test_failures_have_no_version(fake_cli: FakeCliFactory):
    fake_cli("exits-1", stdout="1.0", exit_code=1)
    fake_cli("silent")
    assert cli_version(channel("exits-1")) is None
    assert cli_version(channel("silent")) is None
    assert cli_version(channel("absent-cli-xyz")) is None
    http = HttpChannel.model_validate({"kind": "http", "model": "m",
                                       "endpoint": "http://127.0.0.1:9/v1/chat/completions",
                                       "endpoint_convention": "openai-chat"})
    assert cli_version(http) is None


def test_a_hanging_cli_is_given_up_on(fake_cli: FakeCliFactory,
                                      monkeypatch: pytest.MonkeyPatch):
    limit = 1.0
    monkeypatch.setattr("mmr.dispatch.versions.VERSION_TIMEOUT_S", limit)
    fake_cli("hangs", stdout="1.0", sleep=30)
    started = time.monotonic()
    assert cli_version(channel("hangs")) is None
    assert limit - 0.2 <= time.monotonic() - started < limit + 1.5


def test_a_slow_cli_still_reports_its_version(fake_cli: FakeCliFactory):
    # opencode takes ~3 s to answer --version on a busy machine (issue 17).
    fake_cli("slowver", stdout="slowver 1.18", sleep=3)
    assert cli_version(channel("slowver")) == "slowver 1.18"


def test_secret_looking_line_is_redacted(fake_cli: FakeCliFactory):
    fake_cli("leaky", stdout="leaky 1.0 --token sk-abcdef0123456789")
    assert cli_version(channel("leaky")) == "<redacted>"


def test_executable_path_command(fake_cli: FakeCliFactory):
    fake = fake_cli("by-path", stdout="by-path 2.0")
    assert cli_version(channel(f"{fake.path} run")) == "by-path 2.0"


def test_many_channels_share_one_probe_per_cli(fake_cli: FakeCliFactory):
    shared = fake_cli("shared", stdout="shared 1.0")
    fake_cli("other", stdout="other 2.0")
    versions = cli_versions({"b": channel("shared -x"), "a": channel("shared"),
                             "c": channel("other"), "d": channel("absent-cli-xyz")})
    assert versions == {"b": "shared 1.0", "a": "shared 1.0", "c": "other 2.0"}
    assert list(versions) == ["b", "a", "c"]
    assert len(shared.calls(include_version_probes=True)) == 1


def test_recorded_on_the_job_and_kept_by_the_store():
    store = JobStore(jobs_dir())
    job = store.create_job(["codex", "claude"], fix_threshold="P2", format="json",
                           min_completed_channels=1)
    record_cli_versions(store, job.job_id, {"codex": "codex-cli 0.50.0"})
    record_cli_versions(store, job.job_id, {"claude": "2.0.1 (Claude Code)"})
    record_cli_versions(store, job.job_id, {})
    loaded = store.load(job.job_id)
    assert loaded.cli_versions == {"codex": "codex-cli 0.50.0", "claude": "2.0.1 (Claude Code)"}
    # A later read-modify-write of job.json keeps the field.
    store.register_channel(job.job_id, "grok", ChannelJobEntry(status="dispatched"))
    raw = json.loads(Path(store.paths(job.job_id).job_json).read_text())
    assert list(raw["channels"]) == ["codex", "claude", "grok"]
    assert raw["cli_versions"]["codex"] == "codex-cli 0.50.0"
    assert store.load(job.job_id).to_json_dict()["cli_versions"]["claude"] == "2.0.1 (Claude Code)"


def test_recorded_beside_a_running_dispatch(fake_cli: FakeCliFactory):
    import anyio

    from mmr.dispatch.versions import record_cli_versions_async

    fake_cli("fake-codex", stdout="codex-cli 0.50.0")
    store = JobStore(jobs_dir())
    job = store.create_job(["codex"], fix_threshold="P2", format="json",
                           min_completed_channels=1)

    async def review() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(record_cli_versions_async, store, job.job_id,
                             {"codex": channel("fake-codex exec")})
            await anyio.sleep(0.01)  # the dispatch

    anyio.run(review)
    assert store.load(job.job_id).cli_versions == {"codex": "codex-cli 0.50.0"}


def test_a_review_probes_an_unchanged_executable_once(fake_cli: FakeCliFactory):
    import anyio

    from mmr.dispatch.version_cache import cache_path
    from mmr.dispatch.versions import cli_versions_async

    fake = fake_cli("cached-cli", stdout="cached-cli 1.0")
    channels = {"a": channel("cached-cli exec"), "b": channel("cached-cli")}
    probes = lambda: sum(c["argv"] == ["--version"] for c in fake.calls(  # noqa: E731
        include_version_probes=True))
    first = anyio.run(lambda: cli_versions_async(channels, cached=True))
    second = anyio.run(lambda: cli_versions_async(channels, cached=True))
    assert first == second == {"a": "cached-cli 1.0", "b": "cached-cli 1.0"}
    assert probes() == 1
    assert cache_path().is_file()
    fake = fake_cli("cached-cli", stdout="cached-cli 2.0 (upgraded)")  # a new file: new key
    assert anyio.run(lambda: cli_versions_async(channels, cached=True))["a"] == \
        "cached-cli 2.0 (upgraded)"
    assert anyio.run(cli_versions_async, channels) == {  # uncached callers always probe
        "a": "cached-cli 2.0 (upgraded)", "b": "cached-cli 2.0 (upgraded)"}


def test_a_malformed_cache_is_ignored_and_replaced(fake_cli: FakeCliFactory):
    import anyio

    from mmr.dispatch.version_cache import cache_path
    from mmr.dispatch.versions import cli_versions_async

    fake_cli("cached-cli", stdout="cached-cli 1.0")
    cache_path().parent.mkdir(parents=True, exist_ok=True)
    cache_path().write_text("[not, an object")
    channels = {"a": channel("cached-cli")}
    assert anyio.run(lambda: cli_versions_async(channels, cached=True)) == {"a": "cached-cli 1.0"}
    assert list(json.loads(cache_path().read_text()).values()) == ["cached-cli 1.0"]
