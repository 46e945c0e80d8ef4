"""Iterative critique sessions: ``<state root>/critique-sessions/<id>.json``.

The file is a JSON array of rounds, ``{round, artifact_source, items: [{id, kind, theme,
observation}]}``, MMR 4.0.1's format, written atomically. No ``start`` is needed: an
unknown session has no rounds, and a file that does not parse reads as empty (a warning
says so; the next append replaces it). Appends hold a per-session ``mkdir`` lock, so two
critiques of one session cannot lose a round. Review sessions live elsewhere.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from mmr.config.paths import mmr_home
from mmr.fs import atomic_write_json, ensure_private_dir, read_bytes_nofollow
from mmr.store.locking import mkdir_lock
from mmr.store.session_ids import check_session_id

LOCK_STALE_SECONDS = 5.0
LOCK_TIMEOUT_SECONDS = 5.0


def critique_sessions_dir() -> Path:
    """``<mmr home>/critique-sessions`` (beside the review ``sessions`` directory)."""
    return mmr_home() / "critique-sessions"


class SessionItem(BaseModel):
    """One item as a round remembers it; a field another tool left out reads as None."""

    model_config = ConfigDict(frozen=True)

    id: str | None = None
    kind: str | None = None
    theme: str | None = None
    observation: str | None = None


class SessionRound(BaseModel):
    model_config = ConfigDict(frozen=True)

    round: int
    artifact_source: str
    items: tuple[SessionItem, ...] = ()

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _round_from(raw: object, position: int) -> SessionRound | None:
    if not isinstance(raw, dict):
        return None
    items = raw.get("items")
    number = raw.get("round")
    return SessionRound(
        round=number if isinstance(number, int) and not isinstance(number, bool) else position,
        artifact_source=_text(raw.get("artifact_source")) or "?",
        items=tuple(
            SessionItem(**{key: _text(item.get(key))
                           for key in ("id", "kind", "theme", "observation")})
            for item in (items if isinstance(items, list) else []) if isinstance(item, dict)
        ),
    )


class CritiqueSessionStore:
    """Critique sessions under ``root`` (:func:`critique_sessions_dir` in production)."""

    def __init__(self, root: Path, *, warn: Callable[[str], None] | None = None) -> None:
        self.root = root
        self._warn = warn

    def path(self, session_id: str) -> Path:
        """``<root>/<id>.json``; an invalid id fails before any path is built (exit 1)."""
        return self.root / f"{check_session_id(session_id)}.json"

    def rounds(self, session_id: str) -> list[SessionRound]:
        """The stored rounds, oldest first; none for an unknown or unreadable session."""
        return self._read(self.path(session_id), warn=True)

    def _read(self, path: Path, *, warn: bool) -> list[SessionRound]:
        try:
            raw = json.loads(read_bytes_nofollow(path))
        except FileNotFoundError:
            return []
        except (OSError, ValueError) as exc:
            self._warn_unreadable(path, str(exc), warn)
            return []
        if not isinstance(raw, list):
            self._warn_unreadable(path, "not a JSON array", warn)
            return []
        found = (_round_from(entry, index) for index, entry in enumerate(raw, 1))
        return [entry for entry in found if entry is not None]

    def append(self, session_id: str, entry: SessionRound) -> list[SessionRound]:
        """Add ``entry`` as the last round and return every round."""
        path = self.path(session_id)
        ensure_private_dir(self.root)
        with mkdir_lock(path.with_name(path.name + ".lock"), stale_after=LOCK_STALE_SECONDS,
                        timeout=LOCK_TIMEOUT_SECONDS):
            rounds = [*self._read(path, warn=False), entry]
            atomic_write_json(path, [r.to_json_dict() for r in rounds])
        return rounds

    def _warn_unreadable(self, path: Path, why: str, warn: bool) -> None:
        if warn and self._warn is not None:
            self._warn(f"[mmr] warning: critique session file {path} is unreadable ({why}); "
                       "treating it as a new session")


def round_items(items: Sequence[Any]) -> tuple[SessionItem, ...]:
    """What a round keeps of each reconciled item: id, kind, theme, observation."""
    return tuple(SessionItem(id=i.id, kind=i.kind, theme=i.theme, observation=i.observation)
                 for i in items)
