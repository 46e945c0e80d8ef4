"""The ack record: one ``<finding_key>.json`` file, shared with MMR 4.0.1.

Files are interchangeable with MMR 4.0.1 only if keys and shingles are byte-identical
and the JSON layout is the same: 2-space indent, keys in the order below, ``reason``
omitted when not given, no trailing newline. Reading is lenient about *extra* keys and
strict about the five known ones, exactly as MMR 4.0.1 validates them.

A project ack is committed, so it travels in diffs that reviewers read: there mmr writes
the finding's ``description`` (an extra key MMR 4.0.1 ignores) and an empty
``description_shingle`` instead of the shingle's dozens of five-character grams; the
shingle is recomputed from the description when the ack is matched. MMR 4.0.1 still
loads such a file and matches it by key. User acks keep MMR 4.0.1's exact layout.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from mmr.errors import MmrError
from mmr.fs import dumps_json
from mmr.reconcile.normalize import normalize_location, strip_dot_slash
from mmr.reconcile.stable_id import description_shingle
from mmr.store.records import iso_timestamp

AckScope = Literal["project", "user"]
ACK_SCOPES: tuple[AckScope, ...] = ("project", "user")
#: Largest ack file read; acks are tiny, and a planted huge file must not exhaust memory.
MAX_ACK_BYTES = 256 * 1024

#: Longest description a project ack file holds in place of its shingle.
MAX_ACK_DESCRIPTION = 2000

FINDING_KEY_PATTERN = "^[a-f0-9]{40}$"
_FINDING_KEY = re.compile(r"[a-f0-9]{40}")
#: The only names a scope directory is searched for (``<finding_key>.json``).
ACK_FILE_NAME = re.compile(r"[a-f0-9]{40}\.json")


class InvalidFindingKeyError(MmrError):
    """A finding key that is not 40 lowercase hex characters (exit 1)."""


def is_finding_key(value: object) -> bool:
    return isinstance(value, str) and _FINDING_KEY.fullmatch(value) is not None


def check_finding_key(key: str) -> str:
    """``key`` when valid, else ``Invalid finding_key: <key> — must match ^[a-f0-9]{40}$``."""
    if not is_finding_key(key):
        raise InvalidFindingKeyError(
            f"Invalid finding_key: {key} — must match {FINDING_KEY_PATTERN}"
        )
    return key


def ack_location(location: str) -> str:
    """The ``normalized_location`` an ack stores and lookups compare (``./`` stripped)."""
    return normalize_location(strip_dot_slash(location))


def ack_record_problem(value: object, expected_key: str) -> str | None:
    """Why ``value`` is not a usable ack record for file ``<expected_key>.json``, or None.

    MMR 4.0.1's rules exactly: extra keys are fine, but ``reason`` must be a string
    when present (``null`` is not), and the embedded key must equal the file name.
    """
    if not isinstance(value, dict):
        return "not a JSON object"
    if value.get("finding_key") != expected_key:
        return "finding_key does not match the file name"
    shingle = value.get("description_shingle")
    if (
        not isinstance(value.get("normalized_location"), str)
        or not isinstance(shingle, list)
        or not all(isinstance(gram, str) for gram in shingle)
        or not isinstance(value.get("created_at"), str)
        or ("reason" in value and not isinstance(value["reason"], str))
    ):
        return "missing or mistyped fields"
    return None


class AckRecord(BaseModel):
    """One ack file. Field order is the file's key order; unknown keys are kept."""

    model_config = ConfigDict(extra="allow", strict=True, frozen=True)

    finding_key: str
    normalized_location: str
    description_shingle: list[str]
    reason: str | None = None
    created_at: str
    description: str | None = None

    @classmethod
    def from_json(cls, value: object, expected_key: str) -> AckRecord | None:
        """The record, or None when :func:`ack_record_problem` finds a fault."""
        if ack_record_problem(value, expected_key) is not None:
            return None
        return cls.model_validate(value)

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)

    def file_bytes(self) -> bytes:
        """The file content: 2-space JSON, no trailing newline, lone surrogates escaped."""
        return dumps_json(self.to_json_dict())

    @property
    def member_keys(self) -> tuple[str, ...]:
        """The keys of the group's members when the ack was made (an mmr addition, kept
        as an extra key MMR 4.0.1 ignores); an ack on any of them covers the group."""
        keys = (self.model_extra or {}).get("member_keys")
        if not isinstance(keys, list):
            return ()
        return tuple(key for key in keys if is_finding_key(key))

    @property
    def shingle_set(self) -> frozenset[str]:
        if not self.description_shingle and isinstance(self.description, str):
            return frozenset(description_shingle(self.description))
        return frozenset(self.description_shingle)


def new_ack_record(finding_key: str, location: str, shingle: Sequence[str], *,
                   reason: str | None = None, now: datetime | None = None,
                   description: str | None = None, member_keys: Sequence[str] = ()) -> AckRecord:
    """The record ``mmr ack add`` writes for a reconciled finding's key, location, shingle.

    With ``description`` (a project ack) the file holds the description instead of the
    shingle, when the description reproduces it exactly. ``member_keys`` (the finding's
    members' keys, other than its own) are kept when there are any.
    """
    others = [key for key in dict.fromkeys(member_keys) if key != finding_key]
    extra = {"member_keys": others} if others else {}
    compact = (description is not None and len(description) <= MAX_ACK_DESCRIPTION
               and description_shingle(description) == list(shingle))
    return AckRecord(finding_key=check_finding_key(finding_key),
                     normalized_location=ack_location(location),
                     description_shingle=[] if compact else list(shingle), reason=reason,
                     created_at=iso_timestamp(now), description=description if compact else None,
                     **extra)
