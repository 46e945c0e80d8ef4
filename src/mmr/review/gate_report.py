"""The ratification gate's document: what it held back and how to ratify it.

MMR 4.0.1 prints only a summary; mmr adds a ``ratification`` object — each
ack file the gate held back with the finding it would silence, whether ``.mmr.yaml``
changed, and the exact ``mmr review …`` command that ratifies — which every format shows.
An ack file here comes from the change under review, so it is hostile input: only short
string fields are taken from it, and the formatters sanitise them like any other text.
"""

from __future__ import annotations

import json
from pathlib import Path

from mmr.acks.store import ack_file_bytes
from mmr.config.loaded import LoadedConfig
from mmr.models import GatedAck, Ratification
from mmr.reconcile.documents import ratification_results
from mmr.review.request import ReviewRequest
from mmr.review.run import ReviewOutcome, render_document
from mmr.secrets.redact import redact_text
from mmr.trust.modes import TrustContext
from mmr.trust.ratification import GateBlock
from mmr.vocabulary import EXIT_BLOCKED

MAX_FIELD_CHARS = 200


def _field(data: dict[str, object], name: str) -> str | None:
    value = data.get(name)
    if not isinstance(value, str):
        return None
    return redact_text(value[:MAX_FIELD_CHARS])


def gated_ack(root: Path, file: str) -> GatedAck:
    """The listing of one proposed ack file, from the working tree when it is there."""
    path = root / file
    try:
        inside = path.resolve().is_relative_to((root / ".mmr" / "acks").resolve())
    except (OSError, RuntimeError):  # a symlink loop
        return GatedAck(file=file)
    raw = ack_file_bytes(path) if inside else None  # the ack store's own checks and cap
    if not isinstance(raw, bytes):
        return GatedAck(file=file)
    try:
        data = json.loads(raw.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):  # RecursionError: a planted file nested too deep
        return GatedAck(file=file)
    if not isinstance(data, dict):
        return GatedAck(file=file)
    return GatedAck(file=file, finding_key=_field(data, "finding_key"),
                    location=_field(data, "normalized_location"), ack_reason=_field(data, "reason"))


def ratification(block: GateBlock, trust: TrustContext, request: ReviewRequest) -> Ratification:
    """What the gate held back, and the command that reviews with it ratified."""
    flags: dict[str, bool] = {}
    if block.config:
        flags["trust_project_config"] = True
    if block.acks:
        flags["accept_new_acks"] = True
    acks = [gated_ack(trust.project_root, file)
            for file in block.proposed.ack_files_changed] if block.acks else []
    return Ratification(acks=acks, config_change=block.config,
                        command=request.command_line(**flags))


def gate_outcome(block: GateBlock, trust: TrustContext, loaded: LoadedConfig,
                 request: ReviewRequest) -> ReviewOutcome:
    """The ratification-gate document, exit 2."""
    document = ratification_results(
        block.summary, loaded.defaults.fix_threshold, trust.mode,
        proposed_acks=list(block.proposed.ack_files_changed),
        proposed_config_change=block.proposed.config_file_changed,
    ).model_copy(update={"ratification": ratification(block, trust, request)})
    return ReviewOutcome(render_document(document, loaded.defaults.format), EXIT_BLOCKED)
