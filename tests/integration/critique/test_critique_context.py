"""Repository grounding: what is sent, what is cut, and secrets never leave."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from mmr.critique.context import build_repo_context
from mmr.critique.context_tree import collect_tree
from mmr.secrets.secret_files import is_sensitive_path
from tests.fakes.plugin import FakeCliFactory
from tests.integration.critique.conftest import RunMmr, critique_reply, item, write_user_config

SECRET = "sk-live-DO-NOT-SEND-4242"


def _write(root: Path, files: dict[str, str | bytes]) -> None:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    _write(root, {
        "pyproject.toml": "[project]\nname = 'demo'\n",
        "README.md": "# Demo\nA report scheduler.\n",
        "docs/architecture/a-overview.md": "overview",
        "docs/architecture/b-data.md": "data",
        "docs/architecture/c-jobs.md": "jobs",
        "docs/architecture/d-extra.md": "extra",
        "src/app.py": "def main():\n    return 1\n",
        "src/util.py": "def helper():\n    pass\n",
        "src/keyboard.ts": "export const keys = 1\n",
        "src/PasswordValidator.ts": "export class PasswordValidator {}\n",
        "node_modules/lib/index.js": "module.exports = 1\n",
        ".env": f"API_KEY={SECRET}\n",
        ".env.local": f"TOKEN={SECRET}\n",
        "secrets/db.txt": SECRET,
        "config/keys.json": json.dumps({"k": SECRET}),
        "google-credentials.json": SECRET,
        "private.pem": SECRET,
        "a/b/c/three.txt": "three levels",
        "a/b/c/d/four.txt": "four levels",
    })
    return root


# --- the secret-file rule --------------------------------------------------------------

@pytest.mark.parametrize("path", [
    "credentials.json", "google-credentials.json", "secrets/db.txt", "config/keys.json",
    "tokens.json", "private.pem", ".env", ".env.local", ".ENV", "prod.env", "config/local.env",
    ".npmrc", ".netrc", ".pgpass", ".htpasswd", ".git-credentials", "home/id_rsa",
    "id_ed25519.pub", "api_key.txt", "my-apikeys.yaml", "deploy/secret.yaml", "a.KEY",
    "store.jks", "cert.p12", "passwords.csv",
])
def test_sensitive_paths(path: str) -> None:
    assert is_sensitive_path(path)


@pytest.mark.parametrize("path", [
    "src/PasswordValidator.ts", "src/keyboard.ts", "src/monkey.py", "src/tokenizer.py",
    "docs/design.md", "environment.md", "src/keystone.py",
])
def test_innocent_paths(path: str) -> None:
    assert not is_sensitive_path(path)


# --- the tree ---------------------------------------------------------------------------

def test_tree_skips_ignored_dirs_secrets_symlinks_and_deep_files(repo: Path) -> None:
    (repo / "link.py").symlink_to(repo / "src" / "app.py")
    tree = collect_tree(repo)
    assert "src/app.py" in tree.paths and "a/b/c/three.txt" in tree.paths
    for hidden in ("node_modules/lib/index.js", ".env", ".env.local", "secrets/db.txt",
                   "config/keys.json", "private.pem", "a/b/c/d/four.txt", "link.py"):
        assert hidden not in tree.paths
    assert list(tree.paths) == sorted(tree.paths)
    assert not tree.limited


def test_tree_keeps_the_first_200_files(tmp_path: Path) -> None:
    _write(tmp_path, {f"f{i:03d}.txt": "x" for i in range(250)})
    tree = collect_tree(tmp_path)
    assert tree.paths == tuple(f"f{i:03d}.txt" for i in range(200))
    assert tree.limited
    context = build_repo_context(tmp_path, "")
    assert "_(tree lists the first 200 files only)_" in context.blob


# --- automatic selection ----------------------------------------------------------------

def test_skeleton_manifests_readme_architecture_docs_and_cited_paths(repo: Path) -> None:
    artifact = ("We will change src/app.py and ./src/util.py, drop legacy.py, and read "
                "../outside.txt as well as .env.local.")
    context = build_repo_context(repo, artifact)
    assert context.used == ("pyproject.toml", "README.md", "docs/architecture/a-overview.md",
                            "docs/architecture/b-data.md", "docs/architecture/c-jobs.md",
                            "src/app.py", "src/util.py")
    skipped = {s.path: s.reason for s in context.skipped}
    assert skipped == {"../outside.txt": "outside the current directory",
                       ".env.local": "secret file"}  # legacy.py does not exist: not noise
    blob = context.blob
    assert blob.startswith("## Repository tree\n```\n")
    assert "### src/app.py\n```\ndef main():\n    return 1\n```" in blob
    assert SECRET not in blob


def test_explicit_paths_replace_the_automatic_selection(repo: Path) -> None:
    context = build_repo_context(repo, "mentions src/util.py", ["src/app.py", " ", "nope.py",
                                                               ".env", "private.pem"])
    assert context.used == ("src/app.py",)
    assert [(s.path, s.reason) for s in context.skipped] == [
        ("nope.py", "not found"), (".env", "secret file"), ("private.pem", "secret file")]
    assert "README.md\n" in context.blob  # in the tree listing only
    assert "### README.md" not in context.blob
    assert SECRET not in context.blob


def test_symlinks_are_judged_by_their_target(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("outside secret")
    (repo / "notes.txt").symlink_to(repo / ".env")  # innocent name, secret target
    (repo / "escape.txt").symlink_to(outside)
    (repo / "alias.py").symlink_to(repo / "src" / "app.py")
    (repo / "tokens.txt").symlink_to(repo / "src" / "util.py")  # secret name, innocent target
    context = build_repo_context(repo, "", ["notes.txt", "escape.txt", "alias.py", "tokens.txt",
                                            "src/app.py", "../../../../etc/passwd"])
    assert context.used == ("src/app.py",)  # alias.py is the same real file
    assert {s.path: s.reason for s in context.skipped} == {
        "notes.txt": "secret file", "tokens.txt": "secret file",
        "escape.txt": "resolves outside the current directory",
        "../../../../etc/passwd": "outside the current directory"}
    assert "outside secret" not in context.blob and SECRET not in context.blob


def test_large_binary_and_ignored_files_are_left_out(repo: Path) -> None:
    _write(repo, {"big.txt": "x" * (64 * 1024 + 1), "blob.bin": b"ab\0cd",
                  "ok.txt": "y" * (64 * 1024)})
    context = build_repo_context(repo, "", ["big.txt", "blob.bin", "node_modules/lib/index.js",
                                            "src", "ok.txt"], budget=10**6)
    assert context.used == ("ok.txt",)
    assert {s.path: s.reason for s in context.skipped} == {
        "big.txt": "larger than 64 KiB", "blob.bin": "binary file",
        "node_modules/lib/index.js": "in an ignored directory", "src": "not a regular file"}


def test_the_budget_skips_blocks_that_do_not_fit_and_says_so(tmp_path: Path) -> None:
    _write(tmp_path, {"large.md": "L" * 500, "small.md": "s" * 20})
    context = build_repo_context(tmp_path, "", ["large.md", "small.md"], budget=200)
    assert context.used == ("small.md",)
    assert [(s.path, s.reason) for s in context.skipped] == [
        ("large.md", "over the context budget")]
    assert context.blob.endswith("_(context truncated at budget 200 chars)_")
    body = context.blob.removesuffix("\n\n_(context truncated at budget 200 chars)_")
    assert len(body) <= 200


def test_a_tree_over_the_budget_is_cut(tmp_path: Path) -> None:
    _write(tmp_path, {f"module_{i:03d}.py": "" for i in range(100)})
    context = build_repo_context(tmp_path, "", [], budget=300)
    assert context.blob.endswith("```\n_(tree truncated)_")
    assert len(context.blob) <= 300
    assert "module_000.py" in context.blob and "module_099.py" not in context.blob


def test_fences_outgrow_backticks_inside_a_file(tmp_path: Path) -> None:
    _write(tmp_path, {"doc.md": "text\n```python\nx = 1\n```\n"})
    context = build_repo_context(tmp_path, "", ["doc.md"])
    assert "### doc.md\n````\ntext\n```python\nx = 1\n```\n````" in context.blob


# --- end to end ------------------------------------------------------------------------

@pytest.fixture
def channels(fake_cli: FakeCliFactory) -> FakeCliFactory:
    reply = critique_reply(item("The scheduler duplicates src/app.py's main loop."))
    fake_cli("ca", stdout=reply)
    fake_cli("cb", stdout=reply)
    write_user_config({"ca": {"command": "ca"}, "cb": {"command": "cb"}})
    return fake_cli


def _sent(factory: FakeCliFactory) -> list[str]:
    prompts = []
    for record in factory.records_dir.glob("*.jsonl"):
        prompts += [json.loads(line)["stdin"] for line in record.read_text().splitlines()]
    return prompts


def test_context_repo_grounds_every_channel_and_reports_what_it_used(
        repo: Path, channels: FakeCliFactory, run_mmr: RunMmr) -> None:
    (repo / "design.md").write_text("Rework src/app.py; keep the values in .env.local as is.\n")
    result = run_mmr("critique", "design.md", "--context", "repo", "--format", "json", cwd=repo)
    assert result.code == 0, result.err
    report = result.json()
    assert report["context_used"][-1] == "src/app.py"
    assert "README.md" in report["context_used"]
    assert {"path": ".env.local", "reason": "secret file"} in report["context_skipped"]
    prompts = _sent(channels)
    assert len(prompts) == 2 and prompts[0] == prompts[1]
    prompt = prompts[0]
    assert "## Repository context\nJudge how well the design fits this codebase" in prompt
    assert prompt.index("## Repository context") < prompt.index("## Artifact to critique")
    assert "### src/app.py" in prompt
    assert all(SECRET not in p for p in prompts)


def test_context_paths_imply_repo_and_are_the_only_files(repo: Path, channels: FakeCliFactory,
                                                         run_mmr: RunMmr) -> None:
    (repo / "design.md").write_text("Rework the scheduler.\n")
    result = run_mmr("critique", "design.md", "--context-paths", "src/util.py,secrets/db.txt",
                     cwd=repo)
    assert result.code == 0, result.err
    assert ("CONTEXT USED — repo files the models judged the design against\n"
            "  src/util.py\n  left out: secrets/db.txt (secret file)") in result.out
    prompt = _sent(channels)[0]
    assert "### src/util.py" in prompt and "### README.md" not in prompt
    assert SECRET not in prompt


def test_context_is_built_from_the_current_directory(repo: Path, channels: FakeCliFactory,
                                                     run_mmr: RunMmr) -> None:
    (repo / "src" / "design.md").write_text("Rework app.py.\n")
    result = run_mmr("critique", "design.md", "--context", "repo", "--format", "json",
                     cwd=repo / "src")
    assert result.code == 0, result.err
    assert result.json()["context_used"] == ["app.py"]


def test_credentials_in_context_files_are_redacted(repo: Path, channels: FakeCliFactory,
                                                   run_mmr: RunMmr) -> None:
    token = "ghp_" + "a1B2" * 9
    (repo / "src" / "client.py").write_text(f'GITHUB_TOKEN = "{token}"\n')
    (repo / "design.md").write_text("Rework src/client.py.\n")
    result = run_mmr("critique", "design.md", "--context", "repo", cwd=repo)
    assert result.code == 0
    assert "redacted 1 credential-shaped string(s)" in result.err
    prompt = _sent(channels)[0]
    assert token not in prompt and "<redacted:github-token>" in prompt


def test_dry_run_lists_the_context(repo: Path, channels: FakeCliFactory,
                                   run_mmr: RunMmr) -> None:
    (repo / "design.md").write_text("Rework src/app.py.\n")
    result = run_mmr("critique", "design.md", "--context-paths", "src/app.py,.env",
                     "--dry-run", cwd=repo)
    assert result.code == 0
    assert "Context used: src/app.py\nContext left out: .env (secret file)" in result.out
    assert SECRET not in result.out
    assert not list(channels.records_dir.glob("*.jsonl"))


def test_without_context_nothing_is_read(repo: Path, channels: FakeCliFactory,
                                         run_mmr: RunMmr) -> None:
    (repo / "design.md").write_text("Rework src/app.py.\n")
    result = run_mmr("critique", "design.md", "--format", "json", cwd=repo)
    assert "context_used" not in result.json()
    assert "## Repository context" not in _sent(channels)[0]
    assert os.environ.get("MMR_HOME")  # the isolation fixture is active
