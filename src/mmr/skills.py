"""``mmr skill install``: put the mmr review skill where each coding agent reads it.

Planning is pure (:func:`plan_install` reads files, writes nothing); :func:`apply_plan`
writes. Dedicated files (Cursor, OpenCode, Claude Code) are created, or replaced only with
``--force``. ``AGENTS.md`` (Codex and Antigravity share it) gets a managed block between
markers: re-running replaces the block and leaves every byte around it alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from mmr import git
from mmr.errors import MmrError
from mmr.fs import atomic_write_bytes
from mmr.resources import read_template

BEGIN_MARKER = "<!-- BEGIN mmr-skill -->"
END_MARKER = "<!-- END mmr-skill -->"
BODY_TEMPLATE = "skills/body.md"
BODY_PLACEHOLDER = "{{body}}"

Mode = Literal["dedicated", "block"]
Action = Literal["create", "update", "unchanged", "blocked-exists"]


@dataclass(frozen=True)
class SkillTarget:
    """Where one platform's agent looks for instructions, and how mmr writes there."""

    path: str
    mode: Mode
    template: str


#: Platforms in ``--all`` order. ``claude`` is mmr's addition (a Claude Code Agent Skill).
PLATFORMS: dict[str, SkillTarget] = {
    "cursor": SkillTarget(".cursor/rules/mmr-review.mdc", "dedicated", "cursor/mmr-review.mdc"),
    "codex": SkillTarget("AGENTS.md", "block", "agents/mmr-review.md"),
    "antigravity": SkillTarget("AGENTS.md", "block", "agents/mmr-review.md"),
    "opencode": SkillTarget(".opencode/skills/mmr/SKILL.md", "dedicated", "opencode/mmr.md"),
    "claude": SkillTarget(".claude/skills/mmr/SKILL.md", "dedicated", "claude/SKILL.md"),
}


@dataclass(frozen=True)
class PlannedFile:
    """One file the install would touch, and what it would do to it."""

    path: str
    platforms: tuple[str, ...]
    action: Action
    content: str

    @property
    def changes(self) -> bool:
        return self.action in ("create", "update")


def select_platforms(values: list[str] | None, install_all: bool) -> list[str]:
    """The requested platforms: trimmed, lower-cased, de-duplicated, in the order given."""
    if install_all:
        return list(PLATFORMS)
    listing = "|".join(PLATFORMS)
    if not values:
        raise MmrError(f"Specify at least one platform (--platform {listing}) or --all.")
    chosen: list[str] = []
    for raw in values:
        name = raw.strip().lower()
        if name not in PLATFORMS:
            raise MmrError(
                f'Unknown platform "{raw}". Choose from: {", ".join(PLATFORMS)}, or use --all.'
            )
        if name not in chosen:
            chosen.append(name)
    return chosen


def install_root(directory: str | None, cwd: Path) -> Path:
    """``--dir`` resolved against ``cwd``, else the nearest directory holding ``.git``."""
    if directory is not None:
        root = (cwd / directory).resolve()
        if root.exists() and not root.is_dir():
            raise MmrError(f"--dir is not a directory: {root}")
        return root
    return git.find_dot_git_ancestor(cwd) or cwd.resolve()


def skill_text(template: str) -> str:
    """A platform's skill file: its template with the shared body put in."""
    body = read_template(BODY_TEMPLATE).rstrip()
    return read_template(f"skills/{template}").replace(BODY_PLACEHOLDER, body)


def managed_block(body: str) -> str:
    """The body between the markers, each on its own line, ending with a newline."""
    return f"{BEGIN_MARKER}\n{body.rstrip()}\n{END_MARKER}\n"


def upsert_block(existing: str, block: str) -> str:
    """``existing`` with the managed block replaced, or appended when there is none.

    From the first BEGIN to the last END (plus one line break) is replaced, which also
    folds accidental duplicates into one block.
    """
    start = existing.find(BEGIN_MARKER)
    end = existing.rfind(END_MARKER)
    if start != -1 and end > start:
        end += len(END_MARKER)
        if existing.startswith("\r\n", end):
            end += 2
        elif existing.startswith("\n", end):
            end += 1
        return existing[:start] + block + existing[end:]
    if not existing.strip():
        return block
    return existing + ("\n" if existing.endswith("\n") else "\n\n") + block


def plan_install(root: Path, platforms: list[str], *, force: bool) -> list[PlannedFile]:
    """What installing for ``platforms`` under ``root`` would do; platforms sharing a file
    collapse into one entry."""
    grouped: dict[str, list[str]] = {}
    for name in platforms:
        grouped.setdefault(PLATFORMS[name].path, []).append(name)
    return [
        _plan_file(root, path, tuple(names), force=force) for path, names in grouped.items()
    ]


def _plan_file(root: Path, path: str, names: tuple[str, ...], *, force: bool) -> PlannedFile:
    target = PLATFORMS[names[0]]
    wanted = skill_text(target.template)
    current = _read(root / path)
    if target.mode == "block":
        block = managed_block(wanted)
        if current is None:
            return PlannedFile(path, names, "create", block)
        updated = upsert_block(current, block)
        return PlannedFile(path, names, "unchanged" if updated == current else "update", updated)
    if current is None:
        return PlannedFile(path, names, "create", wanted)
    if current == wanted:
        return PlannedFile(path, names, "unchanged", wanted)
    return PlannedFile(path, names, "update" if force else "blocked-exists", wanted)


def _read(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8", "surrogateescape")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise MmrError(f"Cannot read {path}: {exc.strerror or exc}") from None


def apply_plan(root: Path, planned: list[PlannedFile]) -> int:
    """Write every create/update entry; returns how many files were written."""
    written = 0
    for entry in planned:
        if entry.changes:
            _write(root / entry.path, entry.content)
            written += 1
    return written


def _write(path: Path, text: str) -> None:
    """Replace ``path`` atomically, keeping its mode; a symlink's target is replaced."""
    data = text.encode("utf-8", "surrogateescape")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists():
            path.write_bytes(data)
            return
        target = path.resolve()
        atomic_write_bytes(target, data, mode=target.stat().st_mode & 0o7777)
    except OSError as exc:
        raise MmrError(f"Failed to write {path}: {exc.strerror or exc}") from None


def report(root: Path, planned: list[PlannedFile], *, dry_run: bool, written: int) -> str:
    """The lines ``mmr skill install`` prints."""
    lines = [f"{'Planned' if dry_run else 'Installing'} MMR review skill in {root}:"]
    for entry in planned:
        lines.append(_entry_line(entry))
    lines.append("")
    if dry_run:
        changing = sum(1 for entry in planned if entry.changes)
        lines.append(f"Dry run — no files written ({changing} would change).")
        return "\n".join(lines)
    lines.append(f"Done — {written} file(s) written.")
    blocked = sum(1 for entry in planned if entry.action == "blocked-exists")
    if blocked:
        lines.append(f"{blocked} skipped (already exist; re-run with --force to overwrite).")
    return "\n".join(lines)


def _entry_line(entry: PlannedFile) -> str:
    head = f"{entry.path}  ({' + '.join(entry.platforms)})"
    if entry.action == "create":
        return f"  + {head}"
    if entry.action == "update":
        return f"  ~ {head}"
    if entry.action == "unchanged":
        return f"  = {head} — already up to date"
    return f"  ! {head} — exists; pass --force to overwrite"
