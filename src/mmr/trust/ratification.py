"""The ratification gate: a diff that proposes project config or ack changes (spec 05 §3.7).

Detection reads only header-ish lines, never hunk bodies, and deliberately
over-detects across diff producers (``a/``/``b/`` prefixes or none, plain
``diff -u``, merge diffs, rename/copy metadata, any case): a miss would silently
trust attacker content, while a false hit only costs an overridable human decision.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mmr.trust.modes import TrustContext

_HEADER_PREFIXES = (
    "diff --git ", "diff --cc ", "diff --combined ", "--- ", "+++ ",
    "rename from ", "rename to ", "copy from ", "copy to ",
)
_CONFIG_FILE = re.compile(r"""(?:^|[\s/"'])\.mmr\.yaml(?:["'\s]|$)""", re.IGNORECASE)
_ACK_FILE = re.compile(r"""\.mmr/acks/[^\s"']+""", re.IGNORECASE)

_REASONS = {
    (True, True): "the diff proposes project config (.mmr.yaml) and ack changes",
    (True, False): "the diff proposes a project config change (.mmr.yaml)",
    (False, True): "the diff proposes project ack changes (.mmr/acks/)",
}


@dataclass(frozen=True)
class ProposedChanges:
    """What the diff under review proposes for the reviewer's own project files."""

    config_file_changed: bool = False
    ack_files_changed: tuple[str, ...] = ()

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


@dataclass(frozen=True)
class GateBlock:
    """The gate stopped the run; exit 2 with verdict ``needs-user-decision``."""

    config: bool
    acks: bool
    proposed: ProposedChanges

    @property
    def reason(self) -> str:
        return _REASONS[(self.config, self.acks)]

    @property
    def summary(self) -> str:
        return (f"Needs user decision — {self.reason}. Re-run with --trust-project-config "
                "(.mmr.yaml) / --accept-new-acks (acks) to proceed.")


def ratification_gate(trust: TrustContext, proposed: ProposedChanges) -> GateBlock | None:
    """The block, if the diff proposes changes the operator has not ratified.

    Only base-ref mode gates: elsewhere working-tree files load only by explicit opt-in.
    """
    if trust.mode != "base-ref":
        return None
    flags = trust.flags
    config = proposed.config_file_changed and not flags.trust_project_config
    acks = bool(proposed.ack_files_changed) and not (flags.accept_new_acks
                                                     or flags.trust_project_acks)
    if not (config or acks):
        return None
    return GateBlock(config=config, acks=acks, proposed=proposed)
