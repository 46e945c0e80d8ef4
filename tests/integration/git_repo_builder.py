"""Test helpers: build real git repositories from dicts, and a fake ``gh`` on PATH."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

FileContent = str | bytes | None  # None deletes the file


@dataclass
class GitRepo:
    """A throwaway repository; files are given as ``{relative path: content}``."""

    root: Path

    @classmethod
    def create(cls, root: Path, *commits: Mapping[str, FileContent]) -> GitRepo:
        root.mkdir(parents=True, exist_ok=True)
        repo = cls(root)
        repo.git("init", "-q", "-b", "main")
        repo.git("config", "commit.gpgsign", "false")
        for files in commits:
            repo.commit(files)
        return repo

    def git(self, *args: str) -> str:
        done = subprocess.run(["git", *args], cwd=self.root, capture_output=True, text=True,
                              check=True)
        return done.stdout

    def write(self, files: Mapping[str, FileContent]) -> None:
        for name, content in files.items():
            path = self.root / name
            if content is None:
                path.unlink()
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content)

    def stage(self, files: Mapping[str, FileContent]) -> None:
        self.write(files)
        self.git("add", "-A", "--", *files)

    def commit(self, files: Mapping[str, FileContent], message: str = "change") -> str:
        self.stage(files)
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.git("rev-parse", "HEAD").strip()

    def branch(self, name: str) -> None:
        self.git("checkout", "-q", "-b", name)

    def checkout(self, name: str) -> None:
        self.git("checkout", "-q", name)


@dataclass
class FakeGh:
    """A ``gh`` script first on PATH: records argv, prints canned output."""

    bin_dir: Path
    log: Path
    diff_file: Path
    view_file: Path

    def calls(self) -> list[list[str]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]

    def tokens(self) -> list[str]:
        """The ``GH_TOKEN`` each call had (empty: none)."""
        return (self.log.parent / "tokens.log").read_text().splitlines()

    def set_diff(self, text: str) -> None:
        self.diff_file.write_text(text)

    def set_view(self, text: str) -> None:
        self.view_file.write_text(text)


_FAKE_GH = '''#!{python}
import json, os, sys
from pathlib import Path
here = Path({here!r})
with open(here / "calls.log", "a") as log:
    log.write(json.dumps(sys.argv[1:]) + "\\n")
with open(here / "tokens.log", "a") as log:
    log.write(os.environ.get("GH_TOKEN", "") + "\\n")
args = sys.argv[1:]
if args[:2] == ["pr", "diff"]:
    source = here / "diff.txt"
elif args[:2] == ["pr", "view"]:
    source = here / "view.json"
else:
    source = None
if source is None or not source.exists():
    sys.stderr.write("GraphQL: Could not resolve to a PullRequest with the number of "
                     + (args[2] if len(args) > 2 else "?") + ".\\n")
    sys.exit(1)
sys.stdout.write(source.read_text())
'''


def install_fake_gh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeGh:
    """Write the fake ``gh`` and put its directory first on PATH."""
    from tests.fakes.gh_api import install_script

    bin_dir = tmp_path / "fake-bin"
    install_script(bin_dir, "gh", _FAKE_GH, monkeypatch)
    return FakeGh(bin_dir, bin_dir / "calls.log", bin_dir / "diff.txt", bin_dir / "view.json")


def path_without_git(tmp_path: Path) -> str:
    """A PATH on which neither git nor gh can be found."""
    empty = tmp_path / "empty-bin"
    empty.mkdir(exist_ok=True)
    return str(empty)
