"""The sandbox the documented examples run in: a real git repository, the installed ``mmr``,
fake reviewer CLIs, a fake ``gh`` and a fake OpenAI-compatible server.

Every example gets a fresh copy of the repository and of ``$MMR_HOME`` (so ``mmr config
init`` or ``mmr ack add`` in one example cannot change the next), then its *state* is
applied (``main-clean``, ``no-reviewers``, a recipe's ``.mmr.yaml`` …). Placeholders such as
``<job-id>`` are filled from real steps run in that copy first.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sysconfig
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

from mmr.store.locking import worker_lock_held
from tests.fakes.gh_api import FakeGhApi, install_fake_gh_api
from tests.fakes.plugin import FakeCli, FakeCliFactory
from tests.integration.git_repo_builder import GitRepo, install_fake_gh
from tests.integration.http.conftest import FakeServer
from tests.integration.http.test_recipes import blocks
from tests.integration.minimax.conftest import envelope
from tests.integration.review.conftest import BUILTIN_ENABLED, CLEAN

BASE_APP = "def f(n):\n    return n\n"
FEATURE_APP = "import os\n\n\ndef f(n):\n    for i in range(n + 1):\n        print(i)\n"
WORKING_ONLY = "# a change only in the work tree"
WORKING_APP = FEATURE_APP + "    " + WORKING_ONLY + "\n"
DESIGN = "# Scheduler\n\nProblem: jobs pile up.\nProposal: a priority queue per tenant.\n"
OUTSIDE_FINDINGS = {"approved": False, "findings": [{
    "severity": "P1", "location": "src/app.py:5", "category": "correctness",
    "description": "The loop runs one step past n", "suggestion": "Use range(n)"}]}
EXPLORE_ANSWER = "The session cookie is set in `src/app.py:4` (sketch)."
PR_NUMBER = "123"
_PLACEHOLDER = re.compile(r"<[A-Za-z][^<>\n]*>")
_ENV_KEEP = ("LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT")


@dataclass(frozen=True)
class Run:
    command: str
    code: int
    out: str
    err: str

    def describe(self) -> str:
        return (f"$ {self.command}\nexit {self.code}\n--- stdout ---\n{self.out[-3000:]}"
                f"\n--- stderr ---\n{self.err[-3000:]}")


@dataclass
class Sandbox:
    root: Path
    bin_dir: Path  #: fake channel CLIs and ``gh``
    server: FakeServer
    alpha: FakeCli
    repo: Path = field(init=False)
    home: Path = field(init=False)
    env: dict[str, str] = field(init=False, default_factory=dict)
    values: dict[str, str] = field(init=False, default_factory=dict)
    alpha_calls_at_start: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        self.repo = self.root / "work" / "repo"
        self.home = self.root / "work" / "home"

    @property
    def mmr_home(self) -> Path:
        return self.home / ".mmr"

    def prepare(self, state: str) -> None:
        """A fresh repository and home, then ``state`` applied to them."""
        shutil.rmtree(self.root / "work", ignore_errors=True)
        shutil.copytree(self.root / "template" / "repo", self.repo, symlinks=True)
        shutil.copytree(self.root / "template" / "home", self.home, symlinks=True)
        self.env = _base_env(self)
        self.values = {}
        self.alpha_calls_at_start = len(self.alpha.calls())
        (self.root / "gh-api" / "fake-gh-api" / "comments.json").unlink(missing_ok=True)
        FakeGhApi(self.root / "gh-api" / "fake-gh-api").model_pr(self.repo, "main", "feature")
        STATES[state](self)

    def run(self, command: str) -> Run:
        """``command`` through bash (no profile, no rc files) in the repository."""
        done = subprocess.run(["bash", "--noprofile", "--norc", "-c", command], check=False,
                              cwd=self.repo, env=self.env, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=300)
        self.wait_for_workers()
        return Run(command, done.returncode, done.stdout, done.stderr)

    def mmr_json(self, command: str) -> dict[str, object]:
        done = self.run(command)
        assert done.code in (0, 2, 3), done.describe()
        document = json.loads(done.out)
        assert isinstance(document, dict), done.describe()
        return document

    def wait_for_workers(self) -> None:
        """Until no detached review worker holds its job's ``worker.lock``."""
        deadline = time.monotonic() + 120
        for lock in sorted(self.mmr_home.glob("jobs/*/worker.lock")):
            while worker_lock_held(lock):
                assert time.monotonic() < deadline, f"review worker still holds {lock}"
                time.sleep(0.05)

    def substitute(self, command: str) -> str:
        """Fill every ``<placeholder>`` from real steps run in this sandbox."""
        def fill(match: re.Match[str]) -> str:
            name = match.group(0)
            if name not in PLACEHOLDERS:
                raise AssertionError(
                    f"unknown placeholder {name} in {command!r}: add it to PLACEHOLDERS in "
                    f"tests/docs/sandbox.py")
            if name not in self.values:
                self.values[name] = PLACEHOLDERS[name](self)
            return self.values[name]
        return _PLACEHOLDER.sub(fill, command)

    def commit(self, *paths: str, message: str = "change") -> None:
        """Commit exactly ``paths`` (the staged README change stays staged)."""
        git = GitRepo(self.repo)
        git.git("add", "--", *paths)
        git.git("commit", "-q", "-m", message, "--", *paths)

    def merge_to_main(self) -> None:
        """What the recipes ask: the committed channel is on the default branch too."""
        GitRepo(self.repo).git("branch", "-f", "main", "HEAD")


def _base_env(sandbox: Sandbox) -> dict[str, str]:
    env = {key: os.environ[key] for key in _ENV_KEEP if key in os.environ}
    runtime = sandbox.root / "work" / "runtime"
    runtime.mkdir()
    env.update({
        "PATH": os.pathsep.join([str(sandbox.bin_dir), *_system_path()]),
        "HOME": str(sandbox.home), "MMR_HOME": str(sandbox.mmr_home),
        "XDG_RUNTIME_DIR": str(runtime), "NO_COLOR": "1", "GIT_CONFIG_NOSYSTEM": "1",
        "MMR_INCOMPLETE_RETRY_DELAY_MS": "0", **_GIT_IDENTITY,
    })
    return env


def _system_path() -> list[str]:
    """The installed ``mmr`` first, then where git and bash live (no reviewer CLIs)."""
    scripts = Path(sysconfig.get_path("scripts"))
    if not (scripts / "mmr").exists():
        pytest.fail(f"mmr is not installed in {scripts}: pip install -e '.[test]'")
    dirs = [str(scripts)]
    for tool in ("git", "bash", "cat", "sed"):
        found = shutil.which(tool)
        if found and str(Path(found).parent) not in dirs:
            dirs.append(str(Path(found).parent))
    return dirs


_GIT_IDENTITY = {"GIT_AUTHOR_NAME": "mmr docs", "GIT_AUTHOR_EMAIL": "docs@example.invalid",
                 "GIT_COMMITTER_NAME": "mmr docs",
                 "GIT_COMMITTER_EMAIL": "docs@example.invalid"}


# --- states ------------------------------------------------------------------------------

def _main_clean(sandbox: Sandbox) -> None:
    """``main`` checked out with nothing changed (a fresh clone)."""
    git = GitRepo(sandbox.repo)
    git.git("reset", "-q", "--hard")
    git.checkout("main")


def _no_reviewers(sandbox: Sandbox) -> None:
    """No user config and no reviewer CLI on PATH: only the built-in presets."""
    (sandbox.mmr_home / "config.yaml").unlink()
    sandbox.env["PATH"] = os.pathsep.join(_system_path())


def _lint_recipe(sandbox: Sandbox) -> None:
    """docs/recipes/linter.md: the wrapper script and its channel, committed."""
    _lint_files(sandbox)
    sandbox.commit(".mmr.yaml", "scripts/mmr-lint", message="lint channel")
    sandbox.merge_to_main()


def _lint_files(sandbox: Sandbox) -> None:
    """The linter recipe's wrapper script and ``.mmr.yaml``, left uncommitted."""
    script = sandbox.repo / "scripts" / "mmr-lint"
    script.parent.mkdir()
    script.write_text(blocks("linter.md", "sh")[0], encoding="utf-8")
    script.chmod(0o755)
    (sandbox.repo / ".mmr.yaml").write_text(blocks("linter.md", "yaml")[0], encoding="utf-8")


def _ollama_recipe(sandbox: Sandbox) -> None:
    """docs/recipes/ollama.md's channel, committed, pointed at the fake server."""
    text = blocks("ollama.md", "yaml")[0]
    assert "http://127.0.0.1:11434/" in text
    text = text.replace("http://127.0.0.1:11434/", sandbox.server.url("/"))
    (sandbox.repo / ".mmr.yaml").write_text(text, encoding="utf-8")
    sandbox.commit(".mmr.yaml", message="ollama channel")
    sandbox.merge_to_main()


def _clean_with_sample(sandbox: Sandbox, recipe: str) -> None:
    """A clean tree and ``demo.patch``, written by the recipe's own ``printf`` line."""
    GitRepo(sandbox.repo).git("reset", "-q", "--hard")
    [line] = [text for block in blocks(recipe, "sh") for text in block.splitlines()
              if text.startswith("printf ") and "> demo.patch" in text]
    done = sandbox.run(line)
    assert done.code == 0 and (sandbox.repo / "demo.patch").is_file(), done.describe()


def _ollama_recipe_clean(sandbox: Sandbox) -> None:
    """The Ollama channel committed and merged, a clean tree, the recipe's sample diff."""
    _ollama_recipe(sandbox)
    _clean_with_sample(sandbox, "ollama.md")


def _lint_recipe_clean(sandbox: Sandbox) -> None:
    """The linter channel committed and merged, a clean tree, the recipe's sample diff."""
    _lint_recipe(sandbox)
    _clean_with_sample(sandbox, "linter.md")


def _beta_fails(sandbox: Sandbox) -> None:
    """The ``beta`` reviewer exits 1 (the fake reads ``FAKE_EXIT`` from the channel's env)."""
    config = sandbox.mmr_home / "config.yaml"
    document = yaml.safe_load(config.read_text(encoding="utf-8"))
    document["channels"]["beta"]["env"] = {"FAKE_EXIT": "1"}
    config.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")


STATES: dict[str, Callable[[Sandbox], None]] = {
    "feature": lambda sandbox: None,
    "main-clean": _main_clean,
    "no-reviewers": _no_reviewers,
    "beta-fails": _beta_fails,
    "lint-recipe": _lint_recipe,
    "lint-recipe-clean": _lint_recipe_clean,
    "lint-uncommitted": _lint_files,
    "ollama-recipe": _ollama_recipe,
    "ollama-recipe-clean": _ollama_recipe_clean,
}


# --- placeholders ------------------------------------------------------------------------

def _job_id(sandbox: Sandbox) -> str:
    return str(sandbox.mmr_json("mmr review --base main --sync --format json")["job_id"])


def _finding_key(sandbox: Sandbox) -> str:
    job = sandbox.substitute("<job-id>")
    document = sandbox.mmr_json(f"mmr reconcile {job} --channel mine --input findings.json")
    findings = document["reconciled_findings"]
    assert isinstance(findings, list) and findings, document
    return str(findings[0]["finding_key"])


def _results_document(sandbox: Sandbox) -> str:
    done = sandbox.run("mmr review --base main --sync --format json > review.json")
    assert done.code == 0, done.describe()
    return "review.json"


PLACEHOLDERS: dict[str, Callable[[Sandbox], str]] = {
    "<job-id>": _job_id,
    "<finding_key>": _finding_key,
    "<number>": lambda sandbox: PR_NUMBER,
    "<the review's JSON document>": _results_document,
}


# --- building it -------------------------------------------------------------------------

def build(root: Path, server: FakeServer) -> Sandbox:
    """Write the template repository and home, the fakes and ``gh`` under ``root``."""
    with pytest.MonkeyPatch.context() as patch:
        for key, value in _GIT_IDENTITY.items():
            patch.setenv(key, value)
        patch.setenv("GIT_CONFIG_NOSYSTEM", "1")
        patch.setenv("HOME", str(root))
        repo = _template_repo(root / "template" / "repo")
        fakes = FakeCliFactory(root)
        alpha = fakes("alpha", stdout=CLEAN)
        fakes("beta", stdout=CLEAN)
        fakes("ask-minimax-run", stdout=envelope(EXPLORE_ANSWER))
        _install_gh(root, fakes.bin_dir, repo, patch)
    _template_home(root / "template" / "home")
    return Sandbox(root, fakes.bin_dir, server, alpha)


def _template_repo(path: Path) -> GitRepo:
    """``main``; ``feature`` checked out with a committed, a staged and a working change."""
    repo = GitRepo.create(path, {
        "src/app.py": BASE_APP, "README.md": "shop\n", "design.md": DESIGN,
        "docs/design.md": DESIGN, "plan.md": DESIGN,
        "findings.json": json.dumps(OUTSIDE_FINDINGS, indent=2) + "\n",
    })
    repo.branch("feature")
    repo.commit({"src/app.py": FEATURE_APP}, message="print every step")
    repo.stage({"README.md": "shop\n\nNow with steps.\n"})
    repo.write({"src/app.py": WORKING_APP})
    return repo


def _template_home(home: Path) -> None:
    """Two fake reviewers in ``$MMR_HOME/config.yaml``; the built-in presets off."""
    config = home / ".mmr" / "config.yaml"
    config.parent.mkdir(parents=True)
    config.write_text(yaml.safe_dump({
        "version": 1, "channels": {"alpha": {"command": "alpha"}, "beta": {"command": "beta"}},
        "channels_disabled": BUILTIN_ENABLED}, sort_keys=False), encoding="utf-8")


def _install_gh(root: Path, bin_dir: Path, repo: GitRepo, patch: pytest.MonkeyPatch) -> None:
    """One ``gh``: ``gh pr …`` serves the feature diff, ``gh api …`` the comment store."""
    for name in ("gh-pr", "gh-api"):
        (root / name).mkdir()
    pr = install_fake_gh(root / "gh-pr", patch)
    api = install_fake_gh_api(root / "gh-api", patch)
    pr.set_diff(repo.git("diff", "main...feature"))
    pr.set_view(json.dumps({"baseRefName": "main", "url": "https://github.com/acme/app/pull/123",
                            "headRefOid": repo.git("rev-parse", "feature").strip()}))
    gh = bin_dir / "gh"
    gh.write_text('#!/bin/sh\nif [ "$1" = api ]; then exec "{api}" "$@"; fi\nexec "{pr}" "$@"\n'
                  .format(api=api.directory / "gh", pr=pr.bin_dir / "gh"))
    gh.chmod(0o755)
