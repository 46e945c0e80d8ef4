"""``mmr skill install`` on real directories: plans, managed blocks,
idempotence, ``--force``, ``--dry-run`` and ``--dir``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mmr.cli.main import main
from mmr.skills import BEGIN_MARKER, END_MARKER, managed_block, skill_text, upsert_block

FILES = {
    "cursor": ".cursor/rules/mmr-review.mdc",
    "agents": "AGENTS.md",
    "opencode": ".opencode/skills/mmr/SKILL.md",
    "claude": ".claude/skills/mmr/SKILL.md",
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    return root


@pytest.fixture
def mmr(monkeypatch, capsys):
    def run(*args: str, cwd: Path) -> tuple[int, str, str]:
        capsys.readouterr()
        with monkeypatch.context() as patch:
            patch.chdir(cwd)
            code = main(["skill", "install", *args])
        out, err = capsys.readouterr()
        return code, out, err

    return run


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_all_platforms_are_installed(project, mmr):
    code, out, err = mmr("--all", cwd=project)
    assert (code, err) == (0, "")
    assert out == (
        f"Installing MMR review skill in {project}:\n"
        "  + .cursor/rules/mmr-review.mdc  (cursor)\n"
        "  + AGENTS.md  (codex + antigravity)\n"
        "  + .opencode/skills/mmr/SKILL.md  (opencode)\n"
        "  + .claude/skills/mmr/SKILL.md  (claude)\n"
        "\n"
        "Done — 4 file(s) written.\n"
    )
    texts = {key: (project / rel).read_text(encoding="utf-8") for key, rel in FILES.items()}
    for text in texts.values():
        assert "mmr — Multi-Model Review" in text and "mmr review" in text
        assert "{{body}}" not in text
    cursor_head = texts["cursor"].split("---\n")[1]
    assert texts["cursor"].startswith("---\n")
    for key in ("description:", "globs:", "alwaysApply: false"):
        assert key in cursor_head
    assert texts["opencode"].startswith("---\nname: mmr\n")
    assert "\ndescription: " in texts["opencode"].split("---\n")[1]
    assert texts["claude"].startswith("---\nname: mmr\ndescription: ")
    assert texts["agents"].startswith(BEGIN_MARKER + "\n# mmr — Multi-Model Review\n")
    assert texts["agents"].endswith(END_MARKER + "\n")


def test_a_second_install_changes_nothing(project, mmr):
    mmr("--all", cwd=project)
    before = snapshot(project)
    code, out, _ = mmr("--all", cwd=project)
    assert code == 0
    assert "  = AGENTS.md  (codex + antigravity) — already up to date\n" in out
    assert out.count(" — already up to date") == 4
    assert out.endswith("Done — 0 file(s) written.\n")
    assert snapshot(project) == before


def test_managed_block_is_appended_and_the_rest_kept_byte_for_byte(project, mmr):
    agents = project / "AGENTS.md"
    original = b"# House rules\r\n\r\nUse tabs.\r\nNo trailing newline here"
    agents.write_bytes(original)
    code, out, _ = mmr("--platform", "codex", cwd=project)
    assert code == 0 and "  ~ AGENTS.md  (codex)\n" in out
    text = agents.read_bytes()
    block = managed_block(skill_text("agents/mmr-review.md")).encode()
    assert text == original + b"\n\n" + block
    mmr("--platform", "antigravity", cwd=project)
    assert agents.read_bytes() == text


def test_a_stale_block_is_replaced_in_place(project, mmr):
    agents = project / "AGENTS.md"
    agents.write_text(f"intro\n{BEGIN_MARKER}\nold words\n{END_MARKER}\r\noutro\n")
    code, out, _ = mmr("--platform", "codex", cwd=project)
    assert code == 0 and "  ~ AGENTS.md  (codex)\n" in out
    text = agents.read_text(encoding="utf-8")
    assert text.startswith(f"intro\n{BEGIN_MARKER}\n# mmr — Multi-Model Review\n")
    assert text.endswith(f"{END_MARKER}\noutro\n")
    assert "old words" not in text


def test_duplicate_blocks_collapse_into_one():
    existing = f"a\n{BEGIN_MARKER}\nx\n{END_MARKER}\nb\n{BEGIN_MARKER}\ny\n{END_MARKER}\nc\n"
    result = upsert_block(existing, managed_block("new"))
    assert result == f"a\n{BEGIN_MARKER}\nnew\n{END_MARKER}\nc\n"


@pytest.mark.parametrize(("existing", "expected"), [
    ("", "BLOCK"),
    ("  \n\n", "BLOCK"),
    ("text\n", "text\n\nBLOCK"),
    ("text", "text\n\nBLOCK"),
    (f"{END_MARKER}\n{BEGIN_MARKER}\n", f"{END_MARKER}\n{BEGIN_MARKER}\n\nBLOCK"),
])
def test_upsert_without_a_block(existing, expected):
    block = managed_block("body $& \\1 $$")
    assert upsert_block(existing, block) == expected.replace("BLOCK", block)


def test_replacement_is_literal():
    body = r"keep $& and \1 and $$ as typed"
    result = upsert_block(f"{BEGIN_MARKER}\nold\n{END_MARKER}\n", managed_block(body))
    assert body in result


def test_a_changed_dedicated_file_needs_force(project, mmr):
    mmr("--platform", "cursor", cwd=project)
    cursor = project / FILES["cursor"]
    cursor.write_text("my own rules\n")
    code, out, _ = mmr("--platform", "cursor", "--platform", "claude", cwd=project)
    assert code == 1
    assert "  ! .cursor/rules/mmr-review.mdc  (cursor) — exists; pass --force to overwrite\n" in out
    assert "  + .claude/skills/mmr/SKILL.md  (claude)\n" in out  # the rest is still written
    assert out.endswith("Done — 1 file(s) written.\n"
                        "1 skipped (already exist; re-run with --force to overwrite).\n")
    assert cursor.read_text() == "my own rules\n"
    code, out, _ = mmr("--platform", "cursor", "--force", cwd=project)
    assert code == 0 and "  ~ .cursor/rules/mmr-review.mdc  (cursor)\n" in out
    assert cursor.read_text(encoding="utf-8") == skill_text("cursor/mmr-review.mdc")


def test_dry_run_writes_nothing(project, mmr):
    (project / FILES["cursor"]).parent.mkdir(parents=True)
    (project / FILES["cursor"]).write_text("mine\n")
    before = snapshot(project)
    code, out, _ = mmr("--all", "--dry-run", cwd=project)
    assert code == 0
    assert out.startswith(f"Planned MMR review skill in {project}:\n")
    assert "  ! .cursor/rules/mmr-review.mdc  (cursor) — exists" in out
    assert out.endswith("\nDry run — no files written (3 would change).\n")
    assert snapshot(project) == before


def test_root_is_the_nearest_git_directory(project, mmr):
    sub = project / "src" / "deep"
    sub.mkdir(parents=True)
    code, out, _ = mmr("--platform", "codex", cwd=sub)
    assert code == 0 and f"in {project}:" in out
    assert (project / "AGENTS.md").is_file() and not (sub / "AGENTS.md").exists()


def test_a_git_file_marks_a_worktree_root(tmp_path, mmr):
    worktree = tmp_path / "wt"
    (worktree / "pkg").mkdir(parents=True)
    (worktree / ".git").write_text("gitdir: /elsewhere/.git/worktrees/wt\n")
    mmr("--platform", "codex", cwd=worktree / "pkg")
    assert (worktree / "AGENTS.md").is_file()


def test_outside_git_the_current_directory_is_the_root(tmp_path, mmr):
    plain = tmp_path / "plain"
    plain.mkdir()
    mmr("--platform", "codex", cwd=plain)
    assert (plain / "AGENTS.md").is_file()


def test_dir_is_resolved_against_cwd_and_created(project, mmr):
    code, out, _ = mmr("--platform", "opencode", "--dir", "other/place", cwd=project)
    target = project / "other" / "place"
    assert code == 0 and f"in {target}:" in out
    assert (target / FILES["opencode"]).is_file()


def test_dir_that_is_a_file_is_refused(project, mmr):
    (project / "afile").write_text("x")
    code, out, err = mmr("--all", "--dir", "afile", cwd=project)
    assert (code, out) == (1, "")
    assert f"--dir is not a directory: {project / 'afile'}" in err


def test_platform_names_are_trimmed_lowered_and_deduplicated(project, mmr):
    code, out, _ = mmr("--platform", " Cursor", "cursor", "CODEX", cwd=project)
    assert code == 0
    assert out.splitlines()[1:3] == ["  + .cursor/rules/mmr-review.mdc  (cursor)",
                                     "  + AGENTS.md  (codex)"]


@pytest.mark.parametrize(("args", "message"), [
    ((), "Specify at least one platform (--platform cursor|codex|antigravity|opencode|claude)"
         " or --all."),
    (("--platform", "cursor,codex"), 'Unknown platform "cursor,codex". Choose from: cursor, '
                                     "codex, antigravity, opencode, claude, or use --all."),
    (("--platform", "Vim"), 'Unknown platform "Vim".'),
])
def test_platform_errors(project, mmr, args, message):
    code, out, err = mmr(*args, cwd=project)
    assert (code, out) == (1, "")
    assert message in err
    assert not (project / "AGENTS.md").exists()


def test_all_overrides_platform(project, mmr):
    code, out, _ = mmr("--platform", "cursor", "--all", cwd=project)
    assert code == 0 and out.count("  + ") == 4


def test_other_actions_are_invalid_choices(project, monkeypatch, capsys):
    monkeypatch.chdir(project)
    assert main(["skill", "uninstall"]) == 1
    assert capsys.readouterr().err == (
        "mmr: error: invalid value 'uninstall' for ACTION (choose from install); "
        "did you mean 'install'?\n"
        "Try 'mmr skill --help'\n")


def test_a_symlinked_agents_file_keeps_its_link_and_mode(project, mmr):
    real = project / "CLAUDE.md"
    real.write_text("shared instructions\n")
    real.chmod(0o640)
    (project / "AGENTS.md").symlink_to("CLAUDE.md")
    code, _, _ = mmr("--platform", "codex", cwd=project)
    assert code == 0
    assert (project / "AGENTS.md").is_symlink()
    assert real.read_text(encoding="utf-8").startswith("shared instructions\n\n" + BEGIN_MARKER)
    assert real.stat().st_mode & 0o777 == 0o640
    assert not [p for p in project.iterdir() if p.name.startswith(".CLAUDE.md.")]


def test_new_files_follow_the_umask(project, mmr):
    old = os.umask(0o022)
    try:
        mmr("--platform", "opencode", cwd=project)
    finally:
        os.umask(old)
    assert (project / FILES["opencode"]).stat().st_mode & 0o777 == 0o644
