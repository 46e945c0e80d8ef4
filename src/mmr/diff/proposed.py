"""What a diff proposes for the reviewer's own project files: ``.mmr.yaml`` and acks.

Detection reads only header-ish lines, never hunk bodies, and deliberately
over-detects across diff producers (``a/``/``b/`` prefixes or none, plain
``diff -u``, merge diffs, rename/copy metadata, any case): a miss would silently
trust attacker content, while a false hit only costs an overridable human decision
(the ratification gate in :mod:`mmr.trust.ratification`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

_HEADER_PREFIXES = (
    "diff --git ", "diff --cc ", "diff --combined ", "--- ", "+++ ",
    "rename from ", "rename to ", "copy from ", "copy to ",
)
_CONFIG_FILE = re.compile(r"""(?:^|[\s/"'])\.mmr\.yaml(?:["'\s]|$)""", re.IGNORECASE)
_ACK_FILE = re.compile(r"""\.mmr/acks/[^\s"']+""", re.IGNORECASE)


@dataclass(frozen=True)
class ProposedChanges:
    """What the diff under review proposes for the reviewer's own project files."""

    config_file_changed: bool = False
    ack_files_changed: tuple[str, ...] = ()

    def union(self, other: ProposedChanges) -> ProposedChanges:
        """Both sets of proposals (the diff's and the checked-out branch's)."""
        acks = dict.fromkeys((*self.ack_files_changed, *other.ack_files_changed))
        return ProposedChanges(self.config_file_changed or other.config_file_changed,
                               tuple(acks))

    def job_fields(self) -> dict[str, object]:
        """``proposed_acks`` / ``proposed_config_change``, each only when it applies."""
        fields: dict[str, object] = {}
        if self.ack_files_changed:
            fields["proposed_acks"] = list(self.ack_files_changed)
        if self.config_file_changed:
            fields["proposed_config_change"] = True
        return fields


def detect_proposed_changes(diff_text: str, extra_paths: Iterable[str] = ()) -> ProposedChanges:
    """Scan the diff's header lines for ``.mmr.yaml`` and ``.mmr/acks/`` paths.

    ``extra_paths`` are files the diff touched but that are not in ``diff_text`` (left
    out by ``diff_exclude`` pathspecs); the gate must still see them.
    """
    config = False
    acks: dict[str, None] = {}  # insertion-ordered set
    headers = [line for line in diff_text.splitlines() if line.startswith(_HEADER_PREFIXES)]
    headers.extend(f"+++ b/{path}" for path in extra_paths)
    for line in headers:
        config = config or _CONFIG_FILE.search(line) is not None
        for match in _ACK_FILE.finditer(line):
            acks.setdefault(match.group(0), None)
    return ProposedChanges(config_file_changed=config, ack_files_changed=tuple(acks))
