"""Which paths a diff touches, and whether a finding's location names one of them.

Paths come from a unified diff's ``--- ``, ``+++ `` and ``diff --git`` lines (plus
``rename``/``copy`` lines, which name the same files), with ``a/``/``b/`` and a leading
``./`` removed and runs of ``/`` collapsed. Lines are read literally, as MMR 4.0.1
does, so a removed line starting with ``-- `` inside a hunk may add a spurious path; that
can only keep a finding, never drop one.

A location names a touched path when the text before its first ``:`` is one (MMR
4.0.1's rule), or — mmr's fix — when the location with the trailing line span
removed does (``src/app.ts (line 4)``), also after dropping one ``a/`` or ``b/`` prefix.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator

from mmr.reconcile.jstext import trim
from mmr.reconcile.normalize import strip_line_span
from mmr.unidiff.names import git_header_names, header_name, strip_side_prefix

_SLASH_RUN = re.compile(r"/{2,}")
_HEADER_PREFIXES = ("--- ", "+++ ")
_NAME_LINES = ("rename from ", "rename to ", "copy from ", "copy to ")
_GIT_HEADER = "diff --git "


def normalize_path(path: str) -> str:
    """Trim, drop one leading ``./``, collapse ``/`` runs."""
    path = trim(path)
    if path.startswith("./"):
        path = path[2:]
    return _SLASH_RUN.sub("/", path)


def _diff_names(diff_text: str) -> Iterator[str]:
    for raw in diff_text.split("\n"):
        line = raw.removesuffix("\r")
        if line.startswith(_HEADER_PREFIXES):
            yield strip_side_prefix(header_name(line[4:]))
        elif line.startswith(_GIT_HEADER):
            yield from map(strip_side_prefix, git_header_names(line[len(_GIT_HEADER):]) or ())
        elif line.startswith(_NAME_LINES):
            yield header_name(line.split(" ", 2)[2])


def touched_paths(diff_text: str) -> frozenset[str]:
    """Every path the unified diff touches (old and new names); ``/dev/null`` ignored."""
    paths = {normalize_path(name) for name in _diff_names(diff_text)}
    paths.discard("/dev/null")
    paths.discard("")
    return frozenset(paths)


def _location_paths(location: str) -> Iterator[str]:
    """MMR 4.0.1's path (text before the first colon), then mmr's (span removed)."""
    yield normalize_path(location.split(":", 1)[0])
    spanless = normalize_path(strip_line_span(trim(location)))
    yield spanless
    yield strip_side_prefix(spanless)


def names_touched_path(location: str, touched: Collection[str]) -> bool:
    """True when the location names one of the touched paths."""
    return any(path in touched for path in _location_paths(location))
