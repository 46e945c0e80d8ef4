"""Stable finding identity: ``finding_key`` and ``description_shingle``.

Both values are stored in results and in ack files shared with MMR 4.0.1, so every
rule is reproduced literally, quirks included. The vectors in
``tests/fixtures/stable-id-vectors.json`` pin every intermediate value; the text rules
themselves live in :mod:`mmr.reconcile.normalize`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

from mmr.reconcile.jstext import sha1_hex, utf16_len, utf16_windows
from mmr.reconcile.normalize import (
    apply_outside_code_spans,
    normalize_category,
    normalize_description,
    normalize_location,
    normalize_suggestion,
    strip_dot_slash,
)

_MODAL = re.compile(r"\b(?:must|should)\b", re.ASCII)
SHINGLE_SIZE = 5


class KeyedFinding(Protocol):
    """The fields a finding's identity is computed from (a ``Finding`` has them all)."""

    @property
    def location(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def suggestion(self) -> str: ...
    @property
    def category(self) -> str | None: ...


def _modal_prose(segment: str) -> str:
    """``must`` → ``should``, nothing else (no trim, no collapse)."""
    if "must" not in segment and "should" not in segment:
        return segment
    return _MODAL.sub("should", segment)


def _shingle_grams(normalized: str) -> tuple[str, ...]:
    """The distinct grams of a normalised description's shingle, in order."""
    if utf16_len(normalized) < SHINGLE_SIZE:
        return ()
    grams = utf16_windows(apply_outside_code_spans(normalized, _modal_prose), SHINGLE_SIZE)
    if len(set(grams)) == len(grams):  # the common case: nothing to de-duplicate
        return tuple(grams)
    return tuple(dict.fromkeys(grams))


def description_shingle(description: str) -> list[str]:
    """Distinct 5-code-unit grams of the modal-normalised description."""
    return list(_shingle_grams(normalize_description(description)))


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|")


@dataclass(frozen=True, slots=True)
class StableIdentity:
    """Every identity value of one finding; ``location`` is after the ``./`` strip."""

    location: str
    normalized_location: str
    normalized_category: str
    normalized_description: str
    normalized_suggestion: str
    description_sha1: str
    suggestion_sha1: str
    key_preimage: str
    finding_key: str
    description_shingle: tuple[str, ...]


def identify(finding: KeyedFinding) -> StableIdentity:
    location = strip_dot_slash(finding.location)
    nloc = normalize_location(location)
    ncat = normalize_category(finding.category)
    ndesc = normalize_description(finding.description)
    nsug = normalize_suggestion(finding.suggestion)
    desc_sha1, sug_sha1 = sha1_hex(ndesc), sha1_hex(nsug)
    preimage = f"{_escape(nloc)}|{_escape(ncat)}|{desc_sha1}|{sug_sha1}"
    return StableIdentity(location=location, normalized_location=nloc, normalized_category=ncat,
                          normalized_description=ndesc, normalized_suggestion=nsug,
                          description_sha1=desc_sha1, suggestion_sha1=sug_sha1,
                          key_preimage=preimage, finding_key=sha1_hex(preimage),
                          description_shingle=_shingle_grams(ndesc))


def finding_key(finding: KeyedFinding) -> str:
    """The 40-hex content identity of a finding, identical to MMR 4.0.1's."""
    return identify(finding).finding_key


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """Set Jaccard similarity; 1.0 when both are empty."""
    if not a and not b:
        return 1.0
    common = len(a & b)
    return common / (len(a) + len(b) - common)
