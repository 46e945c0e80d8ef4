"""The calibrated grouping rule (:mod:`mmr.reconcile.calibrated`): each merge and
non-merge case the calibration study relies on."""

from __future__ import annotations

import random

import pytest

from mmr.models import Finding
from mmr.reconcile import calibrated as cg
from mmr.reconcile.attributed import attribute
from mmr.reconcile.normalize import normalize_description
from mmr.reconcile.reconciler import reconcile
from mmr.reconcile.wording import content_words

# One defect in three reviewers' words (content-word Jaccard 0.18-0.33 between them).
RACE = (
    "Race condition: concurrent requests can pass the device count check and exceed the limit",
    "Two concurrent requests may both pass the device limit check before either insert commits",
    "The device limit check is not atomic, so a race lets concurrent logins exceed the limit",
)
# Another defect of the same change.
TYPO = "Typo in the test name: test_from_dict_inalid_data should be test_from_dict_invalid_data"


def _groups(channel_findings: dict[str, list[Finding]]) -> list[list[str]]:
    groups = cg.group_calibrated(attribute(channel_findings))
    return sorted(sorted(f"{m.source}:{m.location}" for m in g.members) for g in groups)


def _f(location: str, description: str, suggestion: str = "") -> Finding:
    return Finding(severity="P1", location=location, description=description,
                   suggestion=suggestion)


@pytest.mark.parametrize(("location", "expected"), [
    ("a.py:10", (10, 10)),
    ("a.py:10-14", (10, 14)),
    ("a.py:14-10", (10, 14)),
    ("a.py:10:5", (10, 10)),
    ("a.py:10:5-9", (10, 10)),
    ("a.py (line 7)", (7, 7)),
    ("a.py", None),
])
def test_line_range(location: str, expected: tuple[int, int] | None) -> None:
    assert cg.line_range(location) == expected


def test_near_is_a_gap_of_at_most_the_window() -> None:
    assert cg.near((10, 10), (20, 20))
    assert not cg.near((10, 10), (21, 21))
    assert cg.near((10, 30), (40, 45))  # ranges: the gap is from 30 to 40
    assert not cg.near((10, 30), (41, 45))
    assert cg.near(None, (500, 500))  # no line: near every line of its file


def test_one_defect_in_other_words_at_nearby_lines_merges() -> None:
    groups = _groups({"claude": [_f("src/a.py:40", RACE[0])],
                      "codex": [_f("src/a.py:44", RACE[1])],
                      "gemini": [_f("src/a.py:37", RACE[2])]})
    assert groups == [["claude:src/a.py:40", "codex:src/a.py:44", "gemini:src/a.py:37"]]


def test_the_same_words_never_merge_across_files() -> None:
    groups = _groups({"claude": [_f("src/a.py:40", RACE[0])],
                      "codex": [_f("src/b.py:40", RACE[0] + " here")]})
    assert len(groups) == 2


def test_beyond_the_window_is_another_place() -> None:
    apart = {"claude": [_f("src/a.py:40", RACE[0])], "codex": [_f("src/a.py:51", RACE[1])]}
    assert len(_groups(apart)) == 2
    within = {"claude": [_f("src/a.py:40", RACE[0])], "codex": [_f("src/a.py:50", RACE[1])]}
    assert len(_groups(within)) == 1


def test_a_finding_without_a_line_merges_by_its_wording() -> None:
    groups = _groups({"claude": [_f("src/a.py", RACE[0])],
                      "codex": [_f("src/a.py:400", RACE[1])]})
    assert len(groups) == 1


def test_different_defects_at_one_line_stay_apart() -> None:
    groups = _groups({"claude": [_f("src/a.py:40", RACE[0])],
                      "codex": [_f("src/a.py:40", TYPO)]})
    assert len(groups) == 2


def test_exact_key_merges_wherever_it_sits_as_the_reference_does() -> None:
    groups = _groups({"claude": [_f("src/a.py:10", "bug A", "fix A")],
                      "gemini": [_f("src/a.py:99", "bug A", "fix A")]})
    assert groups == [["claude:src/a.py:10", "gemini:src/a.py:99"]]


# A and C share no content word; B shares about a fifth of its words with each.
CHAIN = (
    "The session token stays cached after logout, keeps working for a whole day and "
    "bypasses revocation checks",
    "After logout the cached token lets the retry handler replay requests",
    "The retry handler replays requests immediately without any backoff or jitter between "
    "failed attempts",
)


def test_a_bridging_finding_does_not_chain_two_defects_together() -> None:
    a, b, c = (content_words(normalize_description(text)) for text in CHAIN)
    assert cg.similarity(a, c) == 0
    assert cg.THRESHOLD <= cg.similarity(a, b) < 2 * cg.THRESHOLD
    assert cg.THRESHOLD <= cg.similarity(b, c) < 2 * cg.THRESHOLD
    channels = {"claude": [_f("src/a.py:10", CHAIN[0])], "codex": [_f("src/a.py:11", CHAIN[1])],
                "gemini": [_f("src/a.py:12", CHAIN[2])]}
    merged = _groups(channels)
    assert len(merged) == 2
    assert not any("claude:src/a.py:10" in g and "gemini:src/a.py:12" in g for g in merged)


def test_the_result_does_not_depend_on_the_visiting_order() -> None:
    findings = attribute({"claude": [_f("src/a.py:40", RACE[0]), _f("src/a.py:41", TYPO)],
                          "codex": [_f("src/a.py:44", RACE[1]), _f("src/a.py:11", CHAIN[1])],
                          "gemini": [_f("src/a.py:37", RACE[2]), _f("src/a.py:10", CHAIN[0])]})

    def members(order: list[int]) -> list[list[str]]:
        groups = cg.group_calibrated([findings[i] for i in order])
        return sorted(sorted(m.finding.description for m in g.members) for g in groups)

    assert members([0, 1, 2, 3, 4, 5]) == members([5, 4, 3, 2, 1, 0]) == members(
        [2, 5, 0, 3, 1, 4])


@pytest.mark.parametrize("length", [6, 9, 14])
def test_a_crowded_file_finds_the_same_groups_through_its_index(
        length: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The greedy path of a pile-up: the prefix index misses no group a scan would join.

    From 9 words two must be shared to reach the threshold, and the index then wants a
    group met twice (which keeps a pile of findings sharing one word apart cheaply).
    """
    rng = random.Random(3)
    words = [f"word{n}" for n in range(10 * length)]
    findings = attribute({f"ch{c}": [
        _f(f"src/a.py:{rng.randint(1, 40)}", " ".join(rng.sample(words, length)))
        for _ in range(60)] for c in range(4)})

    monkeypatch.setattr(cg, "CLUSTER_LIMIT", 0)  # placed one by one

    def greedy() -> list[list[int]]:
        groups = cg.group_calibrated(findings)
        return [sorted(id(m) for m in g.members) for g in groups]

    scanned = greedy()
    monkeypatch.setattr(cg, "SCAN_LIMIT", 0)  # every look-up through the index
    indexed = greedy()
    assert indexed == scanned
    assert any(len(g) > 1 for g in scanned) and any(len(g) == 1 for g in scanned)


def test_reconcile_merges_one_defect_and_lists_its_members() -> None:
    merged = reconcile({"claude": [_f("src/a.py:40", RACE[0], "lock")],
                        "codex": [Finding(severity="P0", location="src/a.py:44",
                                          description=RACE[1], suggestion="use a transaction")],
                        "gemini": [_f("src/a.py:80", TYPO)]})
    assert len(merged) == 2
    race = merged[0]
    assert race.sources == ["codex", "claude"]  # visiting order: the P0 first
    assert race.severity == "P0"  # the highest of the group
    assert (race.agreement, race.confidence) == ("majority", "medium")
    assert race.generated_id == "F-001"
    assert race.members is not None
    assert [(m.channel, m.severity, m.location, m.description, m.suggestion)
            for m in race.members] == [
        ("codex", "P0", "src/a.py:44", RACE[1], "use a transaction"),
        ("claude", "P1", "src/a.py:40", RACE[0], "lock")]
    alone = merged[1]
    assert alone.members is not None and [m.channel for m in alone.members] == ["gemini"]
    # A single finding keeps its own key, as under the reference rule.
    [reference] = reconcile({"gemini": [_f("src/a.py:80", TYPO)]}, rule="reference")
    assert alone.finding_key == alone.members[0].finding_key == reference.finding_key
    assert reference.members is None and "members" not in reference.to_json_dict()


def test_reference_rule_keeps_them_apart() -> None:
    merged = reconcile({"claude": [_f("src/a.py:40", RACE[0])],
                        "codex": [_f("src/a.py:44", RACE[1])]}, rule="reference")
    assert [r.agreement for r in merged] == ["unique", "unique"]


@pytest.mark.parametrize("greedy", [False, True])
def test_one_channels_findings_at_two_places_stay_apart(
        greedy: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if greedy:
        monkeypatch.setattr(cg, "CLUSTER_LIMIT", 0)
    token = "Credential committed in the diff: a GitHub token"
    key = "Credential committed in the diff: an AWS access key"
    groups = _groups({"mmr-secrets": [_f("src/app.py:1", token), _f("src/app.py:2", key)],
                      "claude": [_f("src/app.py:2", "An AWS access key is committed in the diff")]})
    assert groups == [["claude:src/app.py:2", "mmr-secrets:src/app.py:2"],
                      ["mmr-secrets:src/app.py:1"]]
    # The same words twice from one channel at two lines: still two findings.
    assert len(_groups({"lint": [_f("a.py:3", "unused variable"),
                                 _f("a.py:5", "unused variable")]})) == 2
