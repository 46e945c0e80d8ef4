"""Which project config a critique honours."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.fakes.plugin import FakeCliFactory
from tests.integration.critique.conftest import RunMmr, critique_reply, item, write_user_config
from tests.integration.git_repo_builder import GitRepo

PROJECT = yaml.safe_dump({"version": 1, "channels": {"proj": {"command": "proj"}}})


@pytest.fixture
def repo(tmp_path: Path, fake_cli: FakeCliFactory) -> GitRepo:
    fake_cli("proj", stdout=critique_reply(item("From the project channel.")))
    fake_cli("ca", stdout=critique_reply(item("From the user channel.")))
    write_user_config({"ca": {"command": "ca"}})
    return GitRepo.create(tmp_path / "repo", {"design.md": "A plan.\n", ".mmr.yaml": PROJECT})


def _channels(result_json: dict[str, object]) -> list[str]:
    per_channel = result_json["per_channel"]
    assert isinstance(per_channel, dict)
    return list(per_channel)


def test_committed_project_config_is_read_from_head(repo: GitRepo, run_mmr: RunMmr) -> None:
    result = run_mmr("critique", "design.md", "--format", "json", cwd=repo.root)
    assert result.code == 0, result.err
    assert _channels(result.json()) == ["ca", "proj"]


def test_working_tree_edits_are_ignored_without_the_flag(repo: GitRepo, run_mmr: RunMmr,
                                                         fake_cli: FakeCliFactory) -> None:
    fake_cli("evil", stdout=critique_reply(item("Injected.")))
    repo.write({".mmr.yaml": yaml.safe_dump({"version": 1,
                                             "channels": {"evil": {"command": "evil"}}})})
    result = run_mmr("critique", "design.md", "--format", "json", cwd=repo.root)
    assert _channels(result.json()) == ["ca", "proj"]
    trusted = run_mmr("critique", "design.md", "--format", "json", "--trust-project-config",
                      cwd=repo.root)
    assert _channels(trusted.json()) == ["ca", "evil"]
    assert ("[mmr] warning: --trust-project-config is honoring the working-tree .mmr.yaml\n"
            in trusted.err)


def test_ci_does_not_trust_the_project_config(repo: GitRepo, run_mmr: RunMmr,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    result = run_mmr("critique", "design.md", "--format", "json", cwd=repo.root)
    assert _channels(result.json()) == ["ca"]


def test_config_base_ref_picks_the_ref(repo: GitRepo, run_mmr: RunMmr,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    repo.git("tag", "trusted")
    repo.commit({".mmr.yaml": yaml.safe_dump({"version": 1, "channels": {}})})
    monkeypatch.setenv("CI", "true")
    result = run_mmr("critique", "design.md", "--format", "json", "--config-base-ref", "trusted",
                     cwd=repo.root)
    assert _channels(result.json()) == ["ca", "proj"]
