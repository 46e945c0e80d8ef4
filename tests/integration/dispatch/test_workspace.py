"""The review workspace: which tree, what is left out, redaction, the cache, the cleanup."""

from __future__ import annotations

import os
import stat
import subprocess
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from mmr.diff import tree
from mmr.diff.inputs import DiffRequest
from mmr.diff.tree import TreeSource, tree_source
from mmr.dispatch import workspace as ws_module
from mmr.dispatch.isolation import cleanup_all_postures, sweep_stale_neutral_dirs
from mmr.dispatch.workspace import MAX_FILE_BYTES, Workspace, export_workspace
from mmr.errors import MmrError
from mmr.secrets.credentials import redact_diff
from tests.integration.git_repo_builder import GitRepo

TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
BASE = {
    "src/app.py": "def divide(a, b):\n    return a / b\n",
    "src/config.py": f'GITHUB = "{TOKEN}"\n',
    "CLAUDE.md": "trusted instructions\n",
    "docs/AGENTS.md": "trusted nested instructions\n",
}
HOSTILE = {
    ".env": "API=1\n",
    "deploy/credentials.json": "{}\n",
    ".claude/settings.json": '{"hooks": {}}\n',
    ".mcp.json": "{}\n",
    ".codex/config.toml": "model = 'x'\n",
    "opencode.json": "{}\n",
    "pkg/.gemini/settings.json": "{}\n",
    "CLAUDE.md": "branch instructions\n",
    "logo.png": b"\x89PNG\r\n\x1a\n\0\0\0",
    "big.txt": "x" * (MAX_FILE_BYTES + 1),
}


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    repo = GitRepo.create(tmp_path / "repo", BASE)
    repo.commit(HOSTILE, "branch")
    (repo.root / "link.py").symlink_to("/etc/passwd")
    repo.git("add", "link.py")
    repo.git("commit", "-q", "-m", "symlink")
    repo.write({".gitignore": "build/\n", "build/out.py": "x = 1\n", "notes.txt": "untracked\n"})
    return repo


@pytest.fixture
def exported(tmp_path: Path) -> Iterator[list[Workspace]]:
    made: list[Workspace] = []
    yield made
    for workspace in made:
        workspace.cleanup()


def _export(repo: GitRepo, kind: tree.TreeKind, cache: Path, made: list[Workspace],
            trusted_ref: str | None = "HEAD~2", *, tmp_root: Path | None = None) -> Workspace:
    commit = repo.git("rev-parse", "HEAD").strip() if kind == "commit" else None
    workspace = export_workspace(TreeSource(kind, repo.root, commit), trusted_ref=trusted_ref,
                                 cache_dir=cache, tmp_root=tmp_root)
    made.append(workspace)
    return workspace


def _files(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*"))
            if p.is_file()}


@pytest.mark.parametrize("kind", ["commit", "index", "worktree"])
def test_only_reviewable_tracked_files_are_exported_redacted(
        repo: GitRepo, kind: tree.TreeKind, tmp_path: Path, exported: list[Workspace]) -> None:
    workspace = _export(repo, kind, tmp_path / "cache", exported)
    assert _files(workspace.root) == {
        "CLAUDE.md": "trusted instructions\n",
        "docs/AGENTS.md": "trusted nested instructions\n",
        "src/app.py": BASE["src/app.py"],
        "src/config.py": 'GITHUB = "<redacted:github-token>"\n',
    }
    assert workspace.left_out == {
        "tool settings": 5, "secret-named": 2, "instruction file of the reviewed branch": 2,
        "binary": 1, "too large": 1,
    }


@pytest.mark.parametrize("kind", ["commit", "index", "worktree"])
def test_each_file_is_redacted_as_the_diff_redacts_it_at_its_path(
        tmp_path: Path, kind: tree.TreeKind, exported: list[Workspace]) -> None:
    """A config file's unquoted password is redacted, as the diff redacts it there; the
    same blob in code (where the diff leaves it) is exported apart, not from its cache
    entry, and a repeat gives the same files."""
    setting = "db_password: Sup3rS3cretPw\n"
    # A config file that is also a pgpass file is a kind of its own: sharing the pgpass
    # file's cache entry would export one of them redacted as the other.
    files = {"deploy/settings.yaml": setting, "deploy/app.conf": setting,
             "src/notes.py": setting, "config.pgpass": setting, "db.pgpass": setting}
    repo = GitRepo.create(tmp_path / "repo", files)
    diff = "".join(f"diff --git a/{p} b/{p}\nnew file mode 100644\n--- /dev/null\n+++ b/{p}\n"
                   f"@@ -0,0 +1 @@\n+{t}" for p, t in files.items())
    expected = {p: text[1:] + "\n" for p, text in
                zip(files, redact_diff(diff)[0].split("\n")[5::6], strict=True)}
    assert expected["deploy/settings.yaml"] == "db_password: <redacted:password>\n"
    assert expected["src/notes.py"] == expected["db.pgpass"] == setting
    assert expected["config.pgpass"] == expected["deploy/settings.yaml"]
    for _ in range(2):  # the first export fills the cache, the repeat links from it
        workspace = _export(repo, kind, tmp_path / "cache", exported, trusted_ref=None)
        assert _files(workspace.root) == expected


def test_without_a_trusted_ref_no_instruction_file_is_exported(
        repo: GitRepo, tmp_path: Path, exported: list[Workspace]) -> None:
    workspace = _export(repo, "commit", tmp_path / "cache", exported, trusted_ref=None)
    assert not any(name.endswith(".md") for name in _files(workspace.root))


def test_each_tree_is_the_one_its_review_reads(repo: GitRepo, tmp_path: Path,
                                               exported: list[Workspace]) -> None:
    repo.stage({"src/app.py": "staged = True\n"})
    repo.write({"src/app.py": "unstaged = True\n"})
    seen = {kind: _files(_export(repo, kind, tmp_path / "cache", exported).root)["src/app.py"]
            for kind in ("commit", "index", "worktree")}
    assert seen == {"commit": BASE["src/app.py"], "index": "staged = True\n",
                    "worktree": "unstaged = True\n"}


def test_the_request_decides_the_tree(repo: GitRepo) -> None:
    head = repo.git("rev-parse", "HEAD").strip()
    first = repo.git("rev-parse", "HEAD~2").strip()
    assert tree_source(DiffRequest(), repo.root) == TreeSource("worktree", repo.root)
    assert tree_source(DiffRequest(staged=True), repo.root) == TreeSource("index", repo.root)
    assert tree_source(DiffRequest(base="HEAD~2"), repo.root) == \
        TreeSource("commit", repo.root, head)
    assert tree_source(DiffRequest(base="HEAD", head="HEAD~2"), repo.root) == \
        TreeSource("commit", repo.root, first)
    assert tree_source(DiffRequest(pr=7), repo.root) == TreeSource("commit", repo.root, head)
    assert tree_source(DiffRequest(diff="x.diff"), repo.root) is None
    assert tree_source(DiffRequest(diff="x.diff", head="HEAD~2"), repo.root) == \
        TreeSource("commit", repo.root, first)


def test_the_workspace_is_read_only_and_private(repo: GitRepo, tmp_path: Path,
                                                exported: list[Workspace]) -> None:
    workspace = _export(repo, "commit", tmp_path / "cache", exported)
    modes = {stat.S_IMODE(p.stat().st_mode) for p in [workspace.root, *workspace.root.rglob("*")]}
    assert modes == {0o500, 0o400}


def record_blob_reads(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The blob ids each export reads from git (and so redacts), one list an export."""
    read: list[list[str]] = []
    original = tree.read_blobs

    def recording(oids: Sequence[str], root: Path) -> Iterator[tuple[str, bytes]]:
        read.append(list(oids))
        return original(oids, root)

    monkeypatch.setattr(ws_module, "read_blobs", recording)
    return read


def test_a_repeat_reads_and_redacts_only_what_changed(
        repo: GitRepo, tmp_path: Path, exported: list[Workspace],
        monkeypatch: pytest.MonkeyPatch) -> None:
    read = record_blob_reads(monkeypatch)
    first = _files(_export(repo, "commit", tmp_path / "cache", exported).root)
    assert len(read[-1]) == 5  # app, config, the binary, two trusted instruction files
    second = _files(_export(repo, "commit", tmp_path / "cache", exported).root)
    assert (read[-1], second) == ([], first)
    repo.commit({"src/app.py": "changed = 1\n"})
    third = _export(repo, "commit", tmp_path / "cache", exported, trusted_ref="HEAD~3")
    changed = repo.git("rev-parse", "HEAD:src/app.py").strip()
    assert read[-1] == [changed]
    assert _files(third.root)["src/app.py"] == "changed = 1\n"


def test_a_temporary_directory_that_cannot_be_made_is_an_error_naming_the_way_out(
        repo: GitRepo, tmp_path: Path) -> None:
    not_a_directory = tmp_path / "file"
    not_a_directory.write_text("")
    with pytest.raises(MmrError, match=r"cannot export the review workspace \(.*Not a "
                       r"directory.*\); free space in .*, or set `workspace: none`"):
        _export(repo, "commit", tmp_path / "cache", [], tmp_root=not_a_directory)


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a tmpfs needs root")
def test_a_full_file_system_is_an_error_naming_the_way_out_and_leaves_nothing(
        repo: GitRepo, tmp_path: Path) -> None:
    repo.commit({f"data/part{i}.txt": f"line {i}\n" * 20_000 for i in range(12)}, "large")
    full = tmp_path / "small"
    full.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", str(full)],
                   check=True)
    try:
        with pytest.raises(MmrError, match=r"No space left on device.*workspace: none"):
            _export(repo, "commit", tmp_path / "cache", [], tmp_root=full)
        assert list(full.iterdir()) == []
    finally:
        subprocess.run(["umount", "-l", str(full)], check=False)


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a tmpfs needs root")
def test_a_cache_too_full_for_a_copy_keeps_no_half_written_file(
        repo: GitRepo, tmp_path: Path, exported: list[Workspace]) -> None:
    """The workspace on another file system (copies into the cache, not links) and a cache
    with no room for a file: the review still gets the file, the cache no torn copy."""
    repo.commit({"data/big.txt": "x = 1\n" * 40_000}, "large")
    full = tmp_path / "cache"
    full.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", str(full)],
                   check=True)
    try:
        workspace = _export(repo, "commit", full, exported, tmp_root=Path("/dev/shm"))
        assert (workspace.root / "data/big.txt").stat().st_size == 240_000
        kept = [p for p in full.rglob("*") if p.is_file()]
        assert kept and all(p.stat().st_size < 240_000 for p in kept), kept
        assert not [p.name for p in kept if p.name.startswith(".") and p.name != ".swept"]
    finally:
        subprocess.run(["umount", "-l", str(full)], check=False)


def test_cleanup_sweep_and_interrupt_remove_the_sealed_directory(
        repo: GitRepo, tmp_path: Path, exported: list[Workspace]) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    source = TreeSource("worktree", repo.root)
    done = export_workspace(source, trusted_ref=None, cache_dir=tmp_path / "c", tmp_root=temp)
    done.cleanup()
    assert not done.root.exists()
    orphan = export_workspace(source, trusted_ref=None, cache_dir=tmp_path / "c", tmp_root=temp)
    os.utime(orphan.root, (0, 0))
    assert sweep_stale_neutral_dirs(tmp_root=temp) == [orphan.root]
    assert not orphan.root.exists()
    live = export_workspace(source, trusted_ref=None, cache_dir=tmp_path / "c", tmp_root=temp)
    assert cleanup_all_postures() >= 1
    assert not live.root.exists()


def test_a_trusted_ref_that_is_the_reviewed_head_gives_no_instruction_file(
        repo: GitRepo, tmp_path: Path, exported: list[Workspace]) -> None:
    for kind in ("commit", "worktree"):
        workspace = _export(repo, kind, tmp_path / "cache", exported, trusted_ref="HEAD")
        assert not any(name.endswith(".md") for name in _files(workspace.root)), kind


def test_the_cache_forgets_unused_content_and_other_rules(
        repo: GitRepo, tmp_path: Path, exported: list[Workspace]) -> None:
    """Entries unused for 14 days and the folders of earlier redaction rules are swept, at
    most once a day; a repeated review's links keep an entry in use."""
    cache_dir = tmp_path / "cache"
    _export(repo, "commit", cache_dir, exported)
    cache = ws_module.RedactionCache(cache_dir)
    entries = sorted(p for p in cache.directory.rglob("*") if p.is_file())
    assert len(entries) == 5
    used = entries[0].stat().st_ctime
    time.sleep(0.05)
    _export(repo, "commit", cache_dir, exported)
    assert entries[0].stat().st_ctime > used  # a link is a use
    earlier_rules = cache_dir / "0123456789abcdef" / "ab"
    earlier_rules.mkdir(parents=True)
    (earlier_rules / "ab12").write_text("redacted by older rules\n")
    now = time.time()
    day = 86400
    cache.sweep(now=now + 13.5 * day)
    assert not earlier_rules.parent.exists()
    assert all(entry.exists() for entry in entries)
    cache.sweep(now=now + 14.2 * day)  # swept less than a day ago: nothing to do
    assert all(entry.exists() for entry in entries)
    cache.sweep(now=now + 14.6 * day)
    assert not any(entry.exists() for entry in entries)
    assert _files(_export(repo, "commit", cache_dir, exported).root)["src/app.py"] == (
        BASE["src/app.py"])



def test_the_cache_fills_when_the_workspace_is_on_another_file_system(
        repo: GitRepo, tmp_path: Path, exported: list[Workspace],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A tmpfs /tmp cannot hold hard links into ~/.mmr: the cache keeps copies instead, so a
    repeated review still reads and redacts nothing."""
    other = Path("/dev/shm")  # a tmpfs on Linux
    assert other.stat().st_dev != tmp_path.stat().st_dev
    read = record_blob_reads(monkeypatch)
    cache = tmp_path / "cache"
    first = _files(_export(repo, "commit", cache, exported, tmp_root=other).root)
    assert len(read[-1]) == 5
    second = _files(_export(repo, "commit", cache, exported, tmp_root=other).root)
    assert (read[-1], second) == ([], first)
