"""Keys and reconciliation accept any unicode finding.

``finding_key`` and ``description_shingle`` never raise (lone surrogates, NUL, RTL marks,
astral characters); ``reconcile`` never raises, is deterministic, does not depend on
the order of the channel mapping, and renaming the channels does not change which
finding keys come out.
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from mmr.fs import dumps_json
from mmr.models import Finding
from mmr.reconcile.reconciler import reconcile
from mmr.reconcile.stable_id import description_shingle, finding_key
from tests.property.strategies import ANY_CHAR, ANY_TEXT

_HEX40 = re.compile(r"[0-9a-f]{40}")
# Few distinct values so that findings collide, group and tie, which is where order matters.
_LOCATIONS = st.sampled_from(["src/a.py:1", "./src/a.py:2", "src/a.py", "b.ts:3-9", "", " ",
                              "unknown", "src/a.py (line 4)", "\udcff:1", "a\x00b:1"]) | ANY_TEXT
_TEXTS = st.sampled_from([
    "SQL injection in the query builder", "SQL injection in the query builder!",
    "Possible SQL injection in query builder", "must validate", "should validate", "", "abc",
    "`code` span must stay", "\ud83d\ude00 emoji", "\ud800 half", "x" * 200,
]) | st.text(ANY_CHAR, max_size=40)
_CATEGORIES = st.none() | st.sampled_from(["security", "Security", "", "perf"]) | ANY_TEXT

FINDINGS = st.builds(
    Finding,
    severity=st.sampled_from(["P0", "P1", "P2", "P3"]),
    location=_LOCATIONS,
    description=_TEXTS,
    suggestion=st.sampled_from(["", "add test", "add TEST", "Use parameters."]) | ANY_TEXT,
    id=st.none() | st.sampled_from(["", "F-1", "X"]) | ANY_TEXT,
    category=_CATEGORIES,
)
CHANNEL_FINDINGS = st.dictionaries(
    st.sampled_from(["claude", "codex", "gemini", "grok", "compensating-claude", "a", "B",
                     "z z", "\udcff", "é"]) | ANY_TEXT,
    st.lists(FINDINGS, max_size=6),
    max_size=4,
)


def _dump(results: list[Any]) -> bytes:
    return dumps_json([r.to_json_dict() for r in results])


@given(finding=FINDINGS)
@example(finding=Finding(severity="P1", location="\ud800", description="\udfff" * 10,
                         suggestion="\x00", category="\u202e"))
def test_finding_key_and_shingle_accept_any_text(finding: Finding) -> None:
    key = finding_key(finding)
    assert _HEX40.fullmatch(key)
    assert finding_key(finding) == key
    shingle = description_shingle(finding.description)
    assert all(isinstance(gram, str) for gram in shingle)
    assert len(set(shingle)) == len(shingle)
    assert description_shingle(finding.description) == shingle


@given(channels=CHANNEL_FINDINGS)
def test_reconcile_never_raises_and_is_deterministic(channels: dict[str, list[Finding]]) -> None:
    first = reconcile(channels)
    second = reconcile({name: list(findings) for name, findings in channels.items()})
    assert _dump(first) == _dump(second)
    total = sum(len(findings) for findings in channels.values())
    assert len(first) <= total
    assert (len(first) == 0) == (total == 0)
    input_keys = {finding_key(f) for findings in channels.values() for f in findings}
    assert {r.finding_key for r in first} <= input_keys
    assert all(set(r.sources) <= set(channels) for r in first)


@given(channels=CHANNEL_FINDINGS, data=st.data())
def test_the_order_of_the_channel_mapping_does_not_matter(
    channels: dict[str, list[Finding]], data: st.DataObject
) -> None:
    names = list(channels)
    shuffled = data.draw(st.permutations(names))
    reordered = {name: channels[name] for name in shuffled}
    assert _dump(reconcile(reordered)) == _dump(reconcile(channels))


@given(channels=CHANNEL_FINDINGS, data=st.data())
def test_renaming_channels_keeps_the_set_of_keys(
    channels: dict[str, list[Finding]], data: st.DataObject
) -> None:
    names = list(channels)
    renamed_to = data.draw(st.permutations(names))
    renamed = {new: channels[old] for old, new in zip(names, renamed_to, strict=True)}
    keys = {r.finding_key for r in reconcile(channels)}
    assert {r.finding_key for r in reconcile(renamed)} == keys
