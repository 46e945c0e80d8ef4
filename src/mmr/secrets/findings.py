"""The P1 findings a review raises for credentials its diff adds.

Kept apart from :mod:`mmr.secrets.credentials` so that redaction, which every command
loads, does not load the finding model (pydantic) with it.
"""

from __future__ import annotations

from mmr.models import Finding
from mmr.secrets.credential_patterns import CredentialKind, label
from mmr.secrets.credentials import ROTATE_SUGGESTION, CredentialHit


def secret_findings(hits: list[CredentialHit]) -> list[Finding]:
    """One P1 security finding per added line that carries a credential: its kinds and
    location, never its value.

    ``Authorization:`` alone is too broad to call a committed secret, so it only redacts.
    """
    kinds_by_location: dict[str, list[CredentialKind]] = {}
    for hit in hits:
        if not hit.added or hit.kind == "authorization" or hit.file is None or hit.line is None:
            continue
        kinds = kinds_by_location.setdefault(f"{hit.file}:{hit.line}", [])
        if hit.kind not in kinds:
            kinds.append(hit.kind)
    return [
        Finding(
            severity="P1",
            location=location,
            description="Hard-coded credential added by this change: "
            + ", ".join(label(kind) for kind in kinds) + ".",
            suggestion=ROTATE_SUGGESTION,
            category="security",
        )
        for location, kinds in kinds_by_location.items()
    ]
