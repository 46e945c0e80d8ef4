"""``unwrap-jsonpath``: take the reply out of a CLI's JSON envelope.

The envelope is the first value that decodes. Two guards run on it before the
payload is looked at: ``incomplete`` (a run the CLI itself marks as unfinished, such as
grok's ``stopReason: Cancelled``) and, mmr only, ``error_path`` (a run the CLI reports
as an error, such as claude's ``is_error: true``).
"""

from __future__ import annotations

import json
import re
from typing import Any

from mmr.parsers.errors import ParseError
from mmr.parsers.jsonpath import NO_MATCH, parse_path, path_label, resolve, resolve_path
from mmr.parsers.scanners import extract_any_value
from mmr.parsers.specs import IncompleteGuard, UnwrapJsonpathSpec, coerce_parser_spec
from mmr.parsers.text import strip_markdown_fences

_ERROR_TEXT_LIMIT = 500
_WHITESPACE_RUN = re.compile(r"\s+")


def decode_envelope(raw: str) -> Any:
    """The envelope: fences stripped, then the first candidate that decodes."""
    return extract_any_value(strip_markdown_fences(raw))


def _resolve_quietly(envelope: Any, path: str) -> Any:
    """Resolve a guard path; a malformed path is simply no match (it never hides the real error)."""
    try:
        return resolve(envelope, parse_path(path))
    except ValueError:
        return NO_MATCH


def _guard_matches(envelope: Any, guard: IncompleteGuard) -> str | None:
    status = _resolve_quietly(envelope, guard.status_path)
    return status if isinstance(status, str) and status in guard.values else None


def _check_incomplete(envelope: Any, spec: UnwrapJsonpathSpec) -> None:
    if spec.incomplete is None:
        return
    status = _guard_matches(envelope, spec.incomplete)
    if status is not None:
        raise ParseError(
            f"channel run did not complete ({path_label(spec.incomplete.status_path)}={status}) "
            f"before emitting findings — {spec.incomplete.message}"
        )


def _check_error(envelope: Any, spec: UnwrapJsonpathSpec) -> None:
    if spec.error_path is None or _resolve_quietly(envelope, spec.error_path) is not True:
        return
    message = f"channel reported an error ({path_label(spec.error_path)}=true)"
    detail = _resolve_quietly(envelope, spec.wrap)
    if isinstance(detail, str):
        detail = _WHITESPACE_RUN.sub(" ", detail).strip()[:_ERROR_TEXT_LIMIT]
        if detail:
            message += f": {detail}"
    raise ParseError(message)


def unwrap_payload(raw: str, spec: UnwrapJsonpathSpec) -> str:
    """The text handed to ``spec.then``: the wrapped string, or the wrapped value as JSON."""
    envelope = decode_envelope(raw)
    _check_incomplete(envelope, spec)
    _check_error(envelope, spec)
    payload = resolve_path(envelope, spec.wrap)
    if payload is NO_MATCH:
        raise ParseError(f"jsonpath did not match: {spec.wrap}")
    if isinstance(payload, str):
        return payload
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False)


def matches_incomplete_guard(raw: str, spec: object) -> bool:
    """True only when ``spec`` has an ``incomplete`` guard and ``raw``'s envelope matches it.

    ``spec`` may be a model, a name or the JSON form saved on a job. Used by the
    dispatcher to retry a cancelled run once. Never raises.
    """
    try:
        spec = coerce_parser_spec(spec)
        if not isinstance(spec, UnwrapJsonpathSpec) or spec.incomplete is None:
            return False
        return _guard_matches(decode_envelope(raw), spec.incomplete) is not None
    except Exception:
        return False
