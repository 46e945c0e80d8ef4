"""The review workspace: the reviewed revision's tracked files, redacted, read-only.

An agentic reviewer reads the code around the change (the callers of a changed function,
its tests, its definitions) from its working directory. A channel with ``workspace:
snapshot`` runs in a private copy of the reviewed tree, exported once per review and shared
by every such channel, instead of the user's work tree (where untracked ``.env`` files,
local credentials and build output lie) or an empty directory (where it reviews blind).

What the copy leaves out or replaces, so that neither a secret nor the branch's own tool
settings reach a reviewer:

- every file a built-in CLI loads by itself as settings, hooks, plugins, MCP servers,
  skills or agents (:data:`TOOL_SETTINGS`);
- instruction files (:data:`INSTRUCTION_FILES`): the trusted ref's copies stand in for the
  branch's, as the project config does; without a trusted ref, or when the trusted ref is
  the reviewed revision itself, there are none;
- secret-named files (the denylist of :mod:`mmr.secrets.secret_files`), binaries and
  files over :data:`MAX_FILE_BYTES`; never an untracked or ignored file, a symlink or a
  submodule (:mod:`mmr.diff.tree`).

Every other file goes through the credential redaction the diff gets at the same path,
with the same ``<redacted:KIND>`` markers. Redacted content is cached by git blob id (and
the kind of path: :func:`mmr.secrets.assignments.path_kind`) under
``~/.mmr/cache/workspace``, so a repeated review of the same repository reads and redacts
only what changed. The copy lives in a ``mmr-grok-ws-*`` temp directory: removed when
the dispatch ends or is interrupted, and by the stale-directory sweep after a kill.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import time
from collections.abc import Iterable
from contextlib import suppress
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import mmr.secrets
from mmr.config.channel_schema import HttpChannel, SubprocessChannel
from mmr.diff.tree import (
    TreeFile,
    TreeSource,
    blob_id,
    blob_sizes,
    git_output,
    list_commit,
    list_files,
    read_blobs,
)
from mmr.dispatch.isolation import (
    CWD_ENV_VARS,
    NEUTRAL_CWD,
    NEUTRAL_DIR_PREFIX,
    Posture,
    remove_tree,
    track_directory,
)
from mmr.errors import MmrError
from mmr.fs import atomic_write_bytes, read_bytes_nofollow
from mmr.secrets.assignments import path_kind
from mmr.secrets.credentials import redact_credentials
from mmr.secrets.secret_files import is_sensitive_path

#: Directories and files the built-in CLIs load from their working directory as settings,
#: hooks, plugins, MCP servers, skills or agents (docs/trust.md lists them per CLI).
TOOL_SETTINGS = frozenset({
    ".claude", ".mcp.json",                      # Claude Code
    ".codex", ".agents",                         # Codex
    ".gemini", ".agent",                         # Antigravity / Gemini
    "opencode.json", "opencode.jsonc", ".opencode",  # opencode
    ".grok",                                     # grok
})
#: Instruction files a CLI reads as its own instructions, at any depth.
INSTRUCTION_FILES = frozenset({
    "CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", "AGENTS.override.md", "GEMINI.md",
})
#: Larger files are left out: generated or vendored, rarely what a reviewer needs.
MAX_FILE_BYTES = 1024 * 1024
WORKSPACE_PREFIX = NEUTRAL_DIR_PREFIX + "ws-"
#: Redacted content not used for this long is removed, by a sweep at most this often.
CACHE_MAX_AGE_S = 14 * 86400
SWEEP_EVERY_S = 86400
#: What the prompt of a channel running in a workspace adds.
WORKSPACE_NOTE = (
    "\n\nYour working directory holds a read-only copy of the reviewed revision's tracked "
    "files (credentials redacted; secret files, tool settings, binaries and large files "
    "left out). Read the code around the change there (callers, definitions, tests) "
    "before you judge it; do not try to modify it.\n"
)
_BINARY_PROBE = 8000


def uses_workspace(channel: SubprocessChannel | HttpChannel) -> bool:
    """Whether ``channel`` runs in the review workspace (its own ``cwd`` wins)."""
    return channel.cwd is None and channel.workspace == "snapshot"


def working_directory(channel: SubprocessChannel, *, workspace: Path | None,
                      repo_root: Path) -> tuple[str | None, dict[str, str]]:
    """The cwd a channel runs in (``{{neutral_cwd}}`` for an empty private one) and its env.

    ``workspace: snapshot`` without a workspace (a ``--diff`` review, ``mmr explore``)
    runs in an empty directory, as ``none`` does; a channel's own ``cwd`` always wins.
    """
    mode = channel.workspace if channel.cwd is None else None
    if mode == "repo":
        directory: Path | None = repo_root
    elif mode == "snapshot" and workspace is not None:
        directory = workspace
    elif mode is not None:
        return NEUTRAL_CWD, dict(channel.env)
    else:
        return channel.cwd, dict(channel.env)
    # Tools trust $PWD over the real directory: pin it as the neutral posture does.
    return str(directory), {**channel.env, **dict.fromkeys(CWD_ENV_VARS, str(directory))}


@dataclass
class Workspace:
    """An exported workspace: its directory, what was written and what was left out."""

    root: Path
    posture: Posture
    written: int = 0
    left_out: dict[str, int] = field(default_factory=dict)
    #: Directories made inside ``root`` (strings: a large export makes thousands of paths).
    directories: set[str] = field(default_factory=set)

    def cleanup(self) -> None:
        """Remove the directory (idempotent)."""
        self.posture.cleanup()

    def _skip(self, reason: str) -> None:
        self.left_out[reason] = self.left_out.get(reason, 0) + 1


def is_tool_setting(path: str) -> bool:
    """Whether a CLI would load ``path`` (repo-relative) as its own settings."""
    return any(part in TOOL_SETTINGS for part in path.split("/"))


def is_instruction_file(path: str) -> bool:
    return path.rsplit("/", 1)[-1] in INSTRUCTION_FILES


@cache
def _rules_digest() -> str:
    """A digest of the redaction code: content redacted by other rules is not reused."""
    digest = hashlib.sha256(mmr.__version__.encode())
    for source in sorted(Path(mmr.secrets.__file__).parent.glob("*.py")):
        digest.update(source.read_bytes())
    return digest.hexdigest()[:16]


class RedactionCache:
    """Redacted content by blob id: read-only files a workspace links to (a link refreshes
    an entry's ctime), ``<oid>.bin`` for a binary. Daily at most, entries unused for
    :data:`CACHE_MAX_AGE_S` and other redaction rules' folders are removed."""

    def __init__(self, directory: Path) -> None:
        self.root = directory
        self.directory = directory / _rules_digest()
        self._made: set[Path] = set()

    def get(self, key: str) -> str | None:
        """The cached file (its ``.bin`` marker for a binary), None when unknown."""
        # Strings, not Paths: asked once a file, pathlib doubled a repeat export's CPU.
        path = f"{self.directory}/{key[:2]}/{key}"
        for candidate in (path, path + ".bin"):
            if os.path.exists(candidate):  # noqa: PTH110
                return candidate
        return None

    def adopt(self, key: str, written: str | None) -> None:
        """Hard-link ``written`` (a complete read-only workspace file) as ``key``'s entry;
        None remembers a binary. A failure only costs time later."""
        path = self.directory / key[:2] / (key if written is not None else key + ".bin")
        with suppress(OSError):
            if path.parent not in self._made:
                path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
                self._made.add(path.parent)
            if written is not None:
                try:
                    os.link(written, path, follow_symlinks=False)
                except OSError:  # another file system (a tmpfs /tmp): keep a copy
                    atomic_write_bytes(path, read_bytes_nofollow(Path(written)), mode=0o400,
                                       durable=False)
            else:
                os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o400))

    def sweep(self, now: float | None = None) -> None:
        """Remove stale entries and other rules' folders, unless swept in the last day."""
        now = time.time() if now is None else now
        stamp = self.root / ".swept"
        with suppress(OSError):
            if now - stamp.stat().st_mtime < SWEEP_EVERY_S:
                return
        with suppress(OSError):
            self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
            stamp.touch()
            os.utime(stamp, (now, now))
            for folder in self.root.iterdir():
                if folder.is_dir() and folder != self.directory:
                    remove_tree(folder)
            for shard in self.directory.iterdir() if self.directory.is_dir() else ():
                for entry in shard.iterdir():
                    if now - entry.lstat().st_ctime > CACHE_MAX_AGE_S:
                        entry.unlink()


def redact_file(data: bytes, path: str) -> bytes | None:
    """The file at ``path`` as a reviewer may see it (None: a binary), redacted as the diff
    redacts its lines there; bytes that are not UTF-8 survive as they were."""
    if b"\0" in data[:_BINARY_PROBE]:
        return None
    redacted, count = redact_credentials(data.decode("utf-8", "surrogateescape"), path)
    return data if count == 0 else redacted.encode("utf-8", "surrogateescape")


def export_workspace(source: TreeSource, *, trusted_ref: str | None, cache_dir: Path,
                     tmp_root: Path | None = None) -> Workspace:
    """Export ``source`` into a fresh read-only directory; the caller must ``cleanup``.
    A file system that refuses it (full, read-only) is an :class:`MmrError` saying how to
    review without it, not a crash."""
    try:
        root = Path(tempfile.mkdtemp(prefix=WORKSPACE_PREFIX, dir=tmp_root))
    except OSError as exc:
        raise export_failed(exc, tmp_root) from exc
    workspace = Workspace(root, track_directory(root))
    (cache := RedactionCache(cache_dir)).sweep()
    try:
        _fill(workspace, source, trusted_ref, cache)
        _seal(workspace)
    except BaseException as exc:
        workspace.cleanup()
        if isinstance(exc, OSError) and not isinstance(exc, MmrError):
            raise export_failed(exc, root.parent) from exc
        raise
    return workspace


def export_failed(why: object, where: Path | None) -> MmrError:
    where = where or Path(tempfile.gettempdir())
    return MmrError(f"cannot export the review workspace ({why}); free space in {where}, or "
                    "set `workspace: none` on the channels that read it to review without it")


def _fill(workspace: Workspace, source: TreeSource, trusted_ref: str | None,
          cache: RedactionCache) -> None:
    from_git: list[TreeFile] = []
    for entry in _reviewable(workspace, list_files(source)):
        if entry.oid is None:
            _write_from_disk(workspace, source.root, entry.path, cache)
        else:
            from_git.append(entry)
    if trusted_ref is not None and not _is_reviewed_head(trusted_ref, source):
        # The trusted ref's instruction files, never the branch's.
        trusted = list_commit(trusted_ref, source.root)
        from_git += [f for f in trusted if is_instruction_file(f.path)
                     and not is_tool_setting(f.path) and not is_sensitive_path(f.path)]
    if source.kind == "index":
        sizes = blob_sizes({f.oid for f in from_git if f.oid and f.size is None}, source.root)
        from_git = [TreeFile(f.path, f.oid, sizes.get(f.oid or "", f.size)) for f in from_git]
    _write_from_git(workspace, source.root, from_git, cache)


def _is_reviewed_head(trusted_ref: str, source: TreeSource) -> bool:
    """Whether the trusted ref is the reviewed revision itself (a working-tree review on
    the branch whose HEAD is trusted for config): its instruction files are the branch's,
    so none are exported."""
    reviewed = source.commit or "HEAD"
    commits = [git_output(["rev-parse", "--verify", "--end-of-options", f"{ref}^{{commit}}"],
                          source.root).strip() for ref in (trusted_ref, reviewed)]
    return len(set(commits)) == 1


def _reviewable(workspace: Workspace, files: Iterable[TreeFile]) -> Iterable[TreeFile]:
    """The files that may be exported as they are; counts the rest by reason."""
    for entry in files:
        if is_tool_setting(entry.path):
            workspace._skip("tool settings")
        elif is_instruction_file(entry.path):
            workspace._skip("instruction file of the reviewed branch")
        elif is_sensitive_path(entry.path):
            workspace._skip("secret-named")
        else:
            yield entry


def cache_key(oid: str, path: str) -> str:
    """A blob's cache entry: its redaction depends on its content and its path's kind."""
    kind = path_kind(path)
    return oid if kind == "code" else f"{oid}-{kind}"


def _write_from_git(workspace: Workspace, repo: Path, files: list[TreeFile],
                    cache: RedactionCache) -> None:
    missing: dict[str, dict[str, list[str]]] = {}  # blob id -> cache key -> paths
    for entry in files:
        oid = entry.oid or ""
        if entry.size is not None and entry.size > MAX_FILE_BYTES:
            workspace._skip("too large")
            continue
        key = cache_key(oid, entry.path)
        cached = cache.get(key)
        if cached is None:
            missing.setdefault(oid, {}).setdefault(key, []).append(entry.path)
        else:
            _link(workspace, entry.path, cached)
    for oid, data in read_blobs(list(missing), repo):
        for key, (first, *others) in missing[oid].items():
            written = _write(workspace, first, redact_file(data, first))
            cache.adopt(key, written)
            for path in others:
                _link(workspace, path, written)


def _write_from_disk(workspace: Workspace, repo: Path, path: str, cache: RedactionCache) -> None:
    """A working-tree file as it stands, keyed by the blob id its content would have."""
    full = repo / path
    try:
        info = full.lstat()
        if not full.is_file() or full.is_symlink():
            return
        if info.st_size > MAX_FILE_BYTES:
            workspace._skip("too large")
            return
        data = full.read_bytes()
    except OSError:  # deleted or unreadable since it was listed
        return
    key = cache_key(blob_id(data), path)
    cached = cache.get(key)
    if cached is not None:
        _link(workspace, path, cached)
        return
    cache.adopt(key, _write(workspace, path, redact_file(data, path)))


def _target(workspace: Workspace, path: str) -> str:
    root = str(workspace.root)
    target = f"{root}/{path}"
    parent = target.rpartition("/")[0]
    if parent != root and parent not in workspace.directories:
        Path(parent).mkdir(parents=True, exist_ok=True, mode=0o700)
        while parent != root and parent not in workspace.directories:
            workspace.directories.add(parent)
            parent = parent.rpartition("/")[0]
    return target


def _link(workspace: Workspace, path: str, cached: str | None) -> None:
    """Put a cached file in the workspace: a hard link to it (a copy across file
    systems); a binary (its ``.bin`` marker, or None) is left out."""
    if cached is None or cached.endswith(".bin"):
        workspace._skip("binary")
        return
    target = _target(workspace, path)
    try:
        os.link(cached, target, follow_symlinks=False)
    except OSError:  # another file system, or links not allowed: copy it
        _write(workspace, path, Path(cached).read_bytes())
        with suppress(OSError):
            os.utime(cached)  # a use, as a link would have marked it (the sweep reads ctime)
        return
    workspace.written += 1


def _write(workspace: Workspace, path: str, content: bytes | None) -> str | None:
    """Write one read-only file (None: a binary, left out); the path written."""
    if content is None:
        workspace._skip("binary")
        return None
    target = _target(workspace, path)
    # Created with its final mode; os.write spares a file object's fstat, ioctl and lseek.
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o400)
    try:
        view = memoryview(content)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)
    workspace.written += 1
    return target


def _seal(workspace: Workspace) -> None:
    """Make every directory read-only, deepest first, so a reviewer cannot add files."""
    for directory in sorted(workspace.directories, key=lambda d: d.count("/"), reverse=True):
        Path(directory).chmod(0o500)
    workspace.root.chmod(0o500)

