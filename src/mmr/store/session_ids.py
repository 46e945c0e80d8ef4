"""The session-id rule shared by review sessions, critique sessions and ``mmr sessions``.

A session id becomes a file name (``<sessions dir>/<id>.json``), so the rule is checked
on the string before any path is built: only ASCII letters, digits, ``_`` and ``-``,
which rules out ``..``, ``/``, absolute paths and NUL. Windows device names and the
names MMR 4.0.1's JavaScript objects treat specially are refused as well, exactly
as MMR 4.0.1 does, so both tools accept the same ids.
"""

from __future__ import annotations

import re

from mmr.errors import MmrError

SESSION_ID_RULE = (
    "^[a-zA-Z0-9_-]+$ and not a reserved name "
    "(con, prn, aux, nul, com1-9, lpt1-9, index, __proto__)"
)
#: What the ``review --session`` flag check prints (parser-level message).
SESSION_ID_FLAG_MESSAGE = f"Invalid session id. Must match {SESSION_ID_RULE}"

_ALLOWED = re.compile(r"[a-zA-Z0-9_-]+")
# re.ASCII: without it IGNORECASE lets non-ASCII look-alikes (e.g. the Kelvin sign) match.
_RESERVED = re.compile(r"con|prn|aux|nul|com[1-9]|lpt[1-9]|index|__proto__",
                       re.IGNORECASE | re.ASCII)


class InvalidSessionIdError(MmrError):
    """A session id that breaks the rule (exit 1)."""


def is_valid_session_id(session_id: str) -> bool:
    """True when ``session_id`` matches the rule and is not a reserved name."""
    return (
        isinstance(session_id, str)
        and _ALLOWED.fullmatch(session_id) is not None
        and _RESERVED.fullmatch(session_id) is None
    )


def check_session_id(session_id: str) -> str:
    """``session_id`` when valid, else :class:`InvalidSessionIdError` naming it and the rule."""
    if not is_valid_session_id(session_id):
        raise InvalidSessionIdError(
            f"Invalid session id: {printable(session_id)} - must match {SESSION_ID_RULE}"
        )
    return session_id


def printable(text: str) -> str:
    """``text`` with control characters escaped, so a bad id cannot forge output lines."""
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in str(text))
