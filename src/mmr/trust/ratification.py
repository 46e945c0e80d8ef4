"""The ratification gate: a diff that proposes project config or ack changes.

What counts as a proposed change is :mod:`mmr.diff.proposed`; this module decides whether
the operator has ratified it.
"""

from __future__ import annotations

from dataclasses import dataclass

from mmr.diff.proposed import ProposedChanges
from mmr.trust.modes import TrustContext

_REASONS = {
    (True, True): "the diff proposes project config (.mmr.yaml) and ack changes",
    (True, False): "the diff proposes a project config change (.mmr.yaml)",
    (False, True): "the diff proposes project ack changes (.mmr/acks/)",
}


@dataclass(frozen=True)
class GateBlock:
    """The gate stopped the run; exit 2 with verdict ``needs-user-decision``."""

    config: bool
    acks: bool
    proposed: ProposedChanges
    #: The default branch, when the checked-out branch (not only the diff) proposes them.
    compared_with: str | None = None

    @property
    def reason(self) -> str:
        reason = _REASONS[(self.config, self.acks)]
        if self.compared_with is None:
            return reason
        return (reason.replace("the diff proposes", "the checked-out branch proposes", 1)
                + f" since its merge base with {self.compared_with}")

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
    return GateBlock(config=config, acks=acks, proposed=proposed, compared_with=trust.compared_with)
