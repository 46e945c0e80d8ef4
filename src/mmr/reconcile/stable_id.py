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


_DescriptionParts = tuple[str, str, tuple[str, ...]]
_SuggestionParts = tuple[str, str]


def _description_parts(description: str) -> _DescriptionParts:
    normalized = normalize_description(description)
    return normalized, sha1_hex(normalized), _shingle_grams(normalized)


def _suggestion_parts(suggestion: str) -> _SuggestionParts:
    normalized = normalize_suggestion(suggestion)
    return normalized, sha1_hex(normalized)


def description_shingle(description: str) -> list[str]:
    """Distinct 5-code-unit grams of the modal-normalised description."""
    return list(_description_parts(description)[2])


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


_LocationParts = tuple[str, str, str]


def _location_parts(raw_location: str) -> _LocationParts:
    """The location after the ``./`` strip, its normal form, and that escaped for the key."""
    location = strip_dot_slash(raw_location)
    nloc = normalize_location(location)
    return location, nloc, _escape(nloc)


def _assemble_identity(location: _LocationParts, ncat: str, description: _DescriptionParts,
                       suggestion: _SuggestionParts) -> StableIdentity:
    raw, nloc, escaped_nloc = location
    ndesc, desc_sha1, shingle = description
    nsug, sug_sha1 = suggestion
    preimage = f"{escaped_nloc}|{_escape(ncat)}|{desc_sha1}|{sug_sha1}"
    return StableIdentity(location=raw, normalized_location=nloc, normalized_category=ncat,
                          normalized_description=ndesc, normalized_suggestion=nsug,
                          description_sha1=desc_sha1, suggestion_sha1=sug_sha1,
                          key_preimage=preimage, finding_key=sha1_hex(preimage),
                          description_shingle=shingle)


def identify(finding: KeyedFinding) -> StableIdentity:
    """Compute the stable identity of one finding."""
    return _assemble_identity(_location_parts(finding.location),
                              normalize_category(finding.category),
                              _description_parts(finding.description),
                              _suggestion_parts(finding.suggestion))


class BatchIdentifier:
    """:func:`identify` for many findings, normalising each distinct text once.

    Channels often repeat a description or a suggestion word for word, and a location
    more often still; the memo lives only as long as the batch, so nothing is retained
    between reconciliations.
    """

    def __init__(self) -> None:
        self._descriptions: dict[str, _DescriptionParts] = {}
        self._suggestions: dict[str, _SuggestionParts] = {}
        self._locations: dict[str, _LocationParts] = {}

    def identify(self, finding: KeyedFinding) -> StableIdentity:
        description = self._descriptions.get(finding.description)
        if description is None:
            description = _description_parts(finding.description)
            self._descriptions[finding.description] = description
        suggestion = self._suggestions.get(finding.suggestion)
        if suggestion is None:
            suggestion = _suggestion_parts(finding.suggestion)
            self._suggestions[finding.suggestion] = suggestion
        location = self._locations.get(finding.location)
        if location is None:
            location = self._locations[finding.location] = _location_parts(finding.location)
        return _assemble_identity(location, normalize_category(finding.category), description,
                                  suggestion)


def finding_key(finding: KeyedFinding) -> str:
    """The 40-hex content identity of a finding, identical to MMR 4.0.1's."""
    return identify(finding).finding_key


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """Set Jaccard similarity; 1.0 when both are empty."""
    if not a and not b:
        return 1.0
    common = len(a & b)
    return common / (len(a) + len(b) - common)
