"""Host isolation: the neutral posture and the child environment.

A channel asks for a *neutral posture* by setting ``cwd: "{{neutral_cwd}}"`` or an ``env``
value to ``"{{neutral_home}}"``. Each call then gets one fresh private directory
(``mmr-grok-*``, mode 0700) that stands in for both, so the CLI sees no host config, skills
or project instructions. It is config isolation, not a sandbox, and not secret isolation:
the child inherits the parent environment, all but mmr's own gh token.

``open_posture`` resolves one call's env and cwd (creating the directory) and
``Posture.cleanup`` undoes it.
"""

from __future__ import annotations

import os
import pwd
import shutil
import tempfile
import time
from collections.abc import Mapping
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path

from mmr.git import GH_TOKEN_ENV

NEUTRAL_HOME = "{{neutral_home}}"
NEUTRAL_CWD = "{{neutral_cwd}}"
#: Kept from MMR 4.0.1 for every channel, so its sweep also finds our orphans.
NEUTRAL_DIR_PREFIX = "mmr-grok-"
STALE_DIR_MAX_AGE_S = 24 * 60 * 60
#: Pinned to the neutral directory when the cwd is neutralised: tools trust ``$PWD``.
CWD_ENV_VARS = ("PWD", "OLDPWD", "INIT_CWD")

_live_postures: dict[Path, Posture] = {}
_swept_roots: set[Path] = set()


def _refers_to(value: str, token: str) -> bool:
    return value == token or value.startswith(token + "/")


def expand_neutral_value(value: str, token: str, directory: Path) -> str:
    """Expand ``token`` as the whole value or as a ``token/…`` prefix; else return ``value``.

    MMR 4.0.1 expands whole values only; a prefix such as
    ``{{neutral_home}}/cfg`` is also expanded here, since a literal ``{{`` is never useful.
    """
    if not _refers_to(value, token):
        return value
    return str(directory) + value[len(token):]


def resolve_cwd(cwd: str | None, base: Path) -> Path | None:
    """A configured cwd as an absolute path (relative values are taken from ``base``)."""
    if cwd is None:
        return None
    path = Path(cwd)
    return path if path.is_absolute() else base / path


def real_home(parent_env: Mapping[str, str]) -> Path:
    """The parent's ``$HOME``, else the account's home directory."""
    home = parent_env.get("HOME")
    return Path(home) if home else Path(pwd.getpwuid(os.getuid()).pw_dir)


@dataclass
class Posture:
    """The resolved environment and cwd for one call, and the directory to remove after it."""

    env: dict[str, str]
    cwd: Path | None
    directory: Path | None = None
    _closed: bool = field(default=False, repr=False)

    def cleanup(self) -> None:
        """Remove the neutral directory (symlinks only; never their targets). Idempotent."""
        if self._closed:
            return
        self._closed = True
        if self.directory is not None:
            _live_postures.pop(self.directory, None)
            remove_tree(self.directory)


def remove_tree(directory: Path) -> None:
    """Remove ``directory`` and all below it, read-only directories (a review workspace)
    included: each is made writable first. Symlinks are removed, never followed."""
    with suppress(OSError):
        for parent, dirs, _files in os.walk(directory):
            for name in dirs:
                with suppress(OSError):
                    path = Path(parent) / name
                    if not path.is_symlink():
                        path.chmod(0o700)
        directory.chmod(0o700)
    shutil.rmtree(directory, ignore_errors=True)


def track_directory(directory: Path) -> Posture:
    """A posture that owns ``directory``: removed by its ``cleanup``, and by
    ``cleanup_all_postures`` when an interrupt comes first."""
    posture = Posture({}, None, directory)
    _live_postures[directory] = posture
    return posture


def _create_neutral_dir(tmp_root: Path | None) -> Path:
    directory = Path(tempfile.mkdtemp(prefix=NEUTRAL_DIR_PREFIX, dir=tmp_root))
    directory.chmod(0o700)
    return directory


def _link_grok_credentials(directory: Path, home: Path) -> None:
    """Symlink ``~/.grok/auth.json`` (only that file) into the neutral home; best effort."""
    source = home / ".grok" / "auth.json"
    if not source.is_file():
        return
    with suppress(OSError):
        target_dir = directory / ".grok"
        target_dir.mkdir(mode=0o700)
        (target_dir / "auth.json").symlink_to(source)


def inherited_env(parent_env: Mapping[str, str] | None = None) -> dict[str, str]:
    """mmr's environment as a reviewer CLI's process gets it: all but mmr's own gh token."""
    return {key: value for key, value in (os.environ if parent_env is None
                                          else parent_env).items() if key != GH_TOKEN_ENV}


def open_posture(channel_env: Mapping[str, str], cwd: str | None, *,
                 parent_env: Mapping[str, str] | None = None, base_cwd: Path | None = None,
                 tmp_root: Path | None = None) -> Posture:
    """Resolve one call's env and cwd, creating a neutral directory when asked for.

    Without placeholders nothing is created and ``cleanup`` does nothing. The caller owns
    the returned posture and must call ``cleanup``; ``cleanup_all_postures`` is the
    interrupt-time backstop. The child's environment is all of the parent's with the
    channel's ``env`` on top: only mmr's own gh token is stripped, since vendor CLIs
    authenticate through their own env vars and an allow-list would silently break them
    (credential refusal is a separate opt-in).
    """
    parent = inherited_env(parent_env)
    base = base_cwd if base_cwd is not None else Path.cwd()
    neutral_cwd = cwd if cwd is not None and _refers_to(cwd, NEUTRAL_CWD) else None
    if neutral_cwd is None and not any(_refers_to(v, NEUTRAL_HOME) for v in channel_env.values()):
        return Posture({**parent, **channel_env}, resolve_cwd(cwd, base))
    directory = _create_neutral_dir(tmp_root)
    posture = track_directory(directory)
    if channel_env.get("HOME") == NEUTRAL_HOME:
        _link_grok_credentials(directory, real_home(parent))
    env = {key: expand_neutral_value(v, NEUTRAL_HOME, directory) for key, v in channel_env.items()}
    if neutral_cwd is not None:
        cwd = expand_neutral_value(neutral_cwd, NEUTRAL_CWD, directory)
        env.update(dict.fromkeys(CWD_ENV_VARS, cwd))
    posture.env = {**parent, **env}
    posture.cwd = resolve_cwd(cwd, base)
    return posture


def cleanup_all_postures() -> int:
    """Remove every neutral directory still open in this process (SIGINT/SIGTERM path)."""
    pending = list(_live_postures.values())
    for posture in pending:
        posture.cleanup()
    return len(pending)


def sweep_stale_neutral_dirs(*, tmp_root: Path | None = None) -> list[Path]:
    """Remove ``mmr-grok-*`` directories older than a day from the temp root.

    Files (and symlinks) with the prefix are never touched; errors are ignored. This is
    the backstop for directories orphaned by SIGKILL or a crash.
    """
    root = tmp_root if tmp_root is not None else Path(tempfile.gettempdir())
    cutoff = time.time() - STALE_DIR_MAX_AGE_S
    removed: list[Path] = []
    with suppress(OSError), os.scandir(root) as entries:
        for entry in entries:
            with suppress(OSError):
                if not entry.name.startswith(NEUTRAL_DIR_PREFIX):
                    continue
                if not entry.is_dir(follow_symlinks=False):
                    continue
                if entry.stat(follow_symlinks=False).st_mtime >= cutoff:
                    continue
                remove_tree(Path(entry.path))
                removed.append(Path(entry.path))
    return removed


def sweep_once(*, tmp_root: Path | None = None) -> list[Path]:
    """Sweep a temp root the first time a dispatch asks in this process; later calls no-op."""
    root = tmp_root if tmp_root is not None else Path(tempfile.gettempdir())
    if root in _swept_roots:
        return []
    _swept_roots.add(root)
    return sweep_stale_neutral_dirs(tmp_root=root)
