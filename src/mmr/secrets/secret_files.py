"""Files a critique's repository context must never read.

Judged by name only: a relative path is sensitive when its last segment has a key or
certificate extension, or when *any* segment (a directory or the file, lower-cased) looks
like an env file, a credential dotfile, an SSH private key or carries a secret-named
token. ``src/keyboard.ts`` and ``src/PasswordValidator.ts`` stay readable; ``.env.local``,
``config/keys.json`` and ``secrets/db.txt`` do not.
"""

from __future__ import annotations

import re

_KEY_EXTENSION = re.compile(r"\.(pem|key|pfx|p12|keystore|jks|asc|ppk)$", re.IGNORECASE)
# One alternation, searched once a segment (a workspace export asks it of every path).
_SEGMENT_RULE = re.compile(
    r"^\.env|\.env$"
    r"|^\.(npmrc|netrc|pgpass|htpasswd|git-credentials)$"
    r"|^id_(rsa|dsa|ecdsa|ed25519)"
    r"|(^|[._-])(secrets?|credentials?|passwd|passwords?|tokens?|apikeys?|api[._-]?keys?"
    r"|keys?)([._-]|$)"
)


def is_sensitive_segment(segment: str) -> bool:
    """Whether one path segment (a directory or file name) is secret-named."""
    lowered = segment.lower()
    return _SEGMENT_RULE.search(lowered) is not None


def is_sensitive_path(relative: str) -> bool:
    """Whether the repo-relative path (``/``-separated) may hold a credential."""
    segments = [part for part in relative.split("/") if part]
    if not segments:
        return False
    if _KEY_EXTENSION.search(segments[-1]):
        return True
    return any(is_sensitive_segment(segment) for segment in segments)
