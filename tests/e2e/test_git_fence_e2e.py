"""The installed ``mmr`` shows reviewers the real text of a change, whatever the reviewed
branch's ``.gitattributes`` or the repository's git config say, and runs no program they
name: one line of attributes (``*.py -diff``, ``* binary`` in a sub-folder, ``diff=NAME``
with the user's textconv driver) must not hide or replace code, and the repository's
config (``core.fsmonitor``, a filter driver, ``diff.external``, ``log.showSignature``)
must not run anything during a working-tree, ``--staged`` or ``--base`` review.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
import yaml

from mmr.config.paths import user_config_path
from tests.builtin_channels import ENABLED_BUILTINS
from tests.e2e.test_review_e2e import mmr_command
from tests.fakes.plugin import FakeCli, FakeCliFactory
from tests.integration.git_repo_builder import GitRepo

CODE = "def handler(request):\n    return eval(request.body)  # the code under review\n"
SHOWN = "+    return eval(request.body)  # the code under review"
SCOPES = {"working tree": (), "staged": ("--staged",), "base": ("--base", "main")}


def reviewer(fake_cli: FakeCliFactory) -> FakeCli:
    fake = fake_cli("rev1", stdout={"approved": True, "findings": [], "summary": "ok"})
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump({"channels": {"rev1": {"command": "rev1"},
                                                 # other flags: another voice (one
                                                 # command twice counts once)
                                                 "rev2": {"command": "rev1",
                                                          "flags": ["--second"]}},
                                    "channels_disabled": ENABLED_BUILTINS}))
    return fake


def review(repo: GitRepo, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*mmr_command(), "review", "--sync", *args], cwd=repo.root,
                          capture_output=True, text=True, env=dict(os.environ), timeout=180,
                          check=False)


def branch_with(tmp_path: Path, files: dict[str, str], scope: str) -> GitRepo:
    """``main`` holds the old code; the branch ``pr-7`` brings ``files`` and the new code,
    committed (``base``), staged or left in the working tree."""
    repo = GitRepo.create(tmp_path / "repo", {"src/app/handler.py": "def handler():\n"
                                              "    pass\n", "README.md": "demo\n"})
    repo.branch("pr-7")
    change = {"src/app/handler.py": CODE}
    if scope == "base":
        repo.commit({**files, **change})
        return repo
    repo.commit(files)
    if scope == "staged":
        repo.stage(change)
    else:
        repo.write(change)
    return repo


ATTRIBUTES = {
    "-diff at the root": {".gitattributes": "*.py -diff\n"},
    "binary in a sub-folder": {"src/app/.gitattributes": "* binary\n"},
    "a driver marked binary": {".gitattributes": "*.py diff=plain\n"},
    "the user's textconv driver": {".gitattributes": "*.py diff=hide\n"},
}


@pytest.mark.parametrize("scope", SCOPES)
@pytest.mark.parametrize("attribute", ATTRIBUTES)
def test_attributes_do_not_hide_the_code(tmp_path: Path, fake_cli: FakeCliFactory,
                                         attribute: str, scope: str) -> None:
    marker = tmp_path / "textconv-ran"
    # The user's own driver (global config, trusted) would replace the code with one line.
    hide = script(tmp_path / "hide", f"touch {marker}\necho nothing here\n")
    (Path.home() / ".gitconfig").write_text(
        f"[diff \"hide\"]\n\ttextconv = {hide}\n"
        "[diff \"plain\"]\n\tbinary = true\n")
    fake = reviewer(fake_cli)
    repo = branch_with(tmp_path, ATTRIBUTES[attribute], scope)
    result = review(repo, *SCOPES[scope])
    assert result.returncode == 0, result.stderr
    prompt = fake.last_call()["stdin"]
    assert SHOWN in prompt
    assert "Binary files" not in prompt and "nothing here" not in prompt
    assert not marker.exists()


def script(path: Path, body: str) -> Path:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return path


def planted_branch(tmp_path: Path, marker: Path, scope: str) -> GitRepo:
    """A branch whose attributes name filter and diff drivers, and whose repository config
    plants a program behind every hook-like setting (each would touch ``marker.<setting>``)."""
    repo = branch_with(tmp_path, {".gitattributes": "*.py filter=evil diff=evil\n"}, scope)
    plant_repo_config(repo, marker)
    return repo


def assert_ran_nothing(tmp_path: Path, result: subprocess.CompletedProcess[str]) -> None:
    """No planted program ran, and the review still succeeded."""
    ran = sorted(p.name for p in tmp_path.glob("pwned.*"))
    assert ran == [], result.stderr
    assert result.returncode == 0, result.stderr


def plant_repo_config(repo: GitRepo, marker: Path) -> None:
    """The repository's own config names programs for every hook-like setting a read-only
    git command consults (as a downloaded or shared checkout could)."""
    clean = f"touch {marker}.clean\necho hidden\n"
    (repo.root / ".git" / "config").open("a").write(
        f"[core]\n\tfsmonitor = touch {marker}.fsmonitor\n"
        f"\thooksPath = {repo.root / 'hooks'}\n"
        f"[filter \"evil\"]\n\tclean = {script(marker.with_name('clean'), clean)}\n"
        f"\tprocess = touch {marker}.process\n\trequired = true\n"
        f"[diff]\n\texternal = touch {marker}.external\n"
        f"[log]\n\tshowSignature = true\n[gpg]\n\tprogram = touch {marker}.gpg\n"
        f"[diff \"evil\"]\n\ttextconv = touch {marker}.textconv\n"
        f"\tcommand = touch {marker}.command\n")
    hooks = repo.root / "hooks"
    hooks.mkdir()
    for hook in ("post-index-change", "post-checkout", "pre-commit"):
        script(hooks / hook, f"touch {marker}.hook\n")


@pytest.mark.parametrize("scope", SCOPES)
def test_the_repository_git_config_runs_nothing(tmp_path: Path, fake_cli: FakeCliFactory,
                                                scope: str) -> None:
    marker = tmp_path / "pwned"
    fake = reviewer(fake_cli)
    repo = planted_branch(tmp_path, marker, scope)
    result = review(repo, *SCOPES[scope])
    assert_ran_nothing(tmp_path, result)
    assert SHOWN in fake.last_call()["stdin"]


def test_a_genuinely_binary_file_stays_binary(tmp_path: Path, fake_cli: FakeCliFactory) -> None:
    fake = reviewer(fake_cli)
    repo = GitRepo.create(tmp_path / "repo", {"logo.png": b"\x89PNG\0\0\0\rIHDR\0\x01",
                                              "src/app/handler.py": "pass\n"})
    repo.write({"logo.png": b"\x89PNG\0\0\0\rIHDR\0\x02", "src/app/handler.py": CODE})
    result = review(repo)
    assert result.returncode == 0, result.stderr
    prompt = fake.last_call()["stdin"]
    assert "Binary files a/logo.png and b/logo.png differ" in prompt
    assert SHOWN in prompt and "\0" not in prompt
    document = json.loads(result.stdout)
    assert document["verdict"] == "pass"
    assert document["coverage"]["binary_files"] == ["logo.png"]  # listed: not reviewed
    text = review(repo, "--format", "text")
    assert "1 binary file(s) not reviewed" in text.stdout, text.stdout


def test_a_huge_binary_file_does_not_hide_the_text_beside_it(
        tmp_path: Path, fake_cli: FakeCliFactory) -> None:
    """Over 10 MiB as text, the blob stays binary; the `-diff` code next to it is shown."""
    fake = reviewer(fake_cli)
    repo = branch_with(tmp_path, {".gitattributes": "*.py -diff\n"}, "working tree")
    blob = bytes(range(256)) * (11 * 4096)
    repo.commit({"data.bin": blob})
    repo.write({"data.bin": None})  # deleted: its text diff is every line, over 10 MiB
    result = review(repo)
    assert result.returncode == 0, result.stderr
    assert SHOWN in fake.last_call()["stdin"]
    assert json.loads(result.stdout)["coverage"]["binary_files"] == ["data.bin"]


GH = """#!/bin/sh
# gh makes git calls of its own (it reads the remotes and config, and the work tree's
# state for some commands), which inherit mmr's environment.
git status --porcelain >/dev/null 2>&1
git log -1 >/dev/null 2>&1
case "$1 $2" in
  "pr diff") cat "$(dirname "$0")/pr.diff" ;;
  "pr view") printf '{"baseRefName": "main", "headRefOid": "%s", "url": "%s"}' \
      "$(git rev-parse HEAD)" "https://github.com/acme/widgets/pull/7" ;;
  *) exit 1 ;;
esac
"""


def test_gh_runs_no_program_of_the_repository_config(tmp_path: Path,
                                                     fake_cli: FakeCliFactory) -> None:
    """``--pr``: the git calls gh makes for mmr get the same fence as mmr's own."""
    marker = tmp_path / "pwned"
    fake = reviewer(fake_cli)
    repo = planted_branch(tmp_path, marker, "working tree")
    bin_dir = tmp_path / "gh-bin"
    bin_dir.mkdir()
    script(bin_dir / "gh", GH.removeprefix("#!/bin/sh\n"))
    (bin_dir / "pr.diff").write_text(
        "diff --git a/src/app/handler.py b/src/app/handler.py\n--- a/src/app/handler.py\n"
        "+++ b/src/app/handler.py\n@@ -1,2 +1,2 @@\n def handler(request):\n-    pass\n"
        f"{SHOWN}\n")
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    result = subprocess.run([*mmr_command(), "review", "--sync", "--pr", "7"], cwd=repo.root,
                            capture_output=True, text=True, env=env, timeout=180, check=False)
    assert_ran_nothing(tmp_path, result)
    assert SHOWN in fake.last_call()["stdin"]


@pytest.mark.parametrize("scope", SCOPES)
def test_the_workspace_export_runs_no_program_of_the_repository_config(
        tmp_path: Path, fake_cli: FakeCliFactory, scope: str) -> None:
    """The export of the reviewed tree for a ``workspace: snapshot`` channel reads through
    the same fence: the reviewer reads the real code there, and nothing planted runs."""
    marker = tmp_path / "pwned"
    fake = fake_cli("rev1", stdout={"approved": True, "findings": [], "summary": "ok"})
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump({
        "channels": {"rev1": {"command": "rev1", "workspace": "snapshot"},
                     "rev2": {"command": "rev1", "flags": ["--second"]}},
        "channels_disabled": ENABLED_BUILTINS}))
    repo = planted_branch(tmp_path, marker, scope)
    result = review(repo, *SCOPES[scope])
    assert_ran_nothing(tmp_path, result)
    assert any("Your working directory holds a read-only copy" in call["stdin"]
               for call in fake.calls())


def test_a_text_file_over_the_cap_is_not_called_binary(tmp_path: Path,
                                                       fake_cli: FakeCliFactory) -> None:
    """A `-diff` text file whose diff is over 10 MiB is not shown, and said to be text
    not shown (not a binary): in coverage, in the verdict's summary, in the text report."""
    fake = reviewer(fake_cli)
    repo = branch_with(tmp_path, {".gitattributes": "*.py -diff\n"}, "working tree")
    repo.write({"generated/table.py": "".join(f"ROW_{n} = {n * 7919}\n"
                                              for n in range(600_000))})
    repo.git("add", "-N", "generated/table.py")
    result = review(repo)
    assert result.returncode == 0, result.stderr
    prompt = fake.last_call()["stdin"]
    assert SHOWN in prompt and "ROW_1 =" not in prompt
    document = json.loads(result.stdout)
    coverage = document["coverage"]
    assert coverage["unshown_text_files"] == ["generated/table.py"]
    assert "binary_files" not in coverage and coverage["partial"] is True
    assert document["summary"].endswith(
        " — 1 changed text file(s) not shown to the reviewers")
    text = review(repo, "--format", "text")
    assert "partial: 1 text file(s) over 10 MiB not shown" in text.stdout, text.stdout
