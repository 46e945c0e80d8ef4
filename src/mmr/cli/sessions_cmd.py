"""``mmr sessions start | list | show | end``: multi-round review sessions.

Every sub-command prints 2-space JSON and exits 0; an invalid id, a session that
already exists or is not there, and a corrupt index are one-line errors with exit 1
(MMR 4.0.1 prints stack traces for them). A session id becomes a file name, so it is
checked against ``^[a-zA-Z0-9_-]+$`` (minus reserved names) before any path is built. The
session store is imported when a sub-command runs (see "Imports" in :mod:`mmr.cli.app`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from mmr.cli.groups import command_group
from mmr.cli.output import write_json
from mmr.config.paths import sessions_dir

if TYPE_CHECKING:
    from mmr.store.sessions import SessionStore

app: typer.Typer = command_group("Manage multi-round review sessions.")

SessionId = Annotated[str, typer.Argument(
    metavar="ID", show_default=False, help="The session id (letters, digits, _ and -).")]


def _store() -> SessionStore:
    from mmr.store.sessions import SessionStore

    return SessionStore(sessions_dir())


@app.command("start")
def start(*, session_id: SessionId) -> int:
    """Start a new, empty session."""
    return write_json(_store().start(session_id).to_json_dict())


@app.command("list")
def list_sessions() -> int:
    """List sessions, newest first."""
    return write_json([record.to_json_dict() for record in _store().list_sessions()])


@app.command("show")
def show(*, session_id: SessionId) -> int:
    """Print one session: its jobs and highest round."""
    return write_json(_store().show(session_id).to_json_dict())


@app.command("end")
def end(*, session_id: SessionId) -> int:
    """End a session: delete its record and index entry."""
    _store().end(session_id)
    return write_json({"ended": session_id})
