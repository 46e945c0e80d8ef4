"""Pure parts of the trust model: safe refs, CI detection, gate detection and decisions."""

from __future__ import annotations

from pathlib import Path

import pytest

from mmr.diff.proposed import ProposedChanges, detect_proposed_changes
from mmr.git import is_safe_ref, safe_repo_path
from mmr.models import TrustMode
from mmr.trust.modes import TrustClassification, TrustContext, TrustFlags, is_ci
from mmr.trust.ratification import GateBlock, ratification_gate

KEY = "0123456789abcdef0123456789abcdef01234567"


@pytest.mark.parametrize("ref", ["main", "HEAD", "HEAD~1", "HEAD^", "origin/main^",
                                 "release/1.2", "v1.0.0", "feature_x-y"])
def test_safe_refs(ref: str) -> None:
    assert is_safe_ref(ref)


@pytest.mark.parametrize("ref", ["", "evil:../../etc", "HEAD:evil", "main..topic",
                                 "main...topic", "HEAD@{1}", "-x", "--output=f", "/abs",
                                 "dangling/", "a b", "a\nb", "main;rm"])
def test_unsafe_refs(ref: str) -> None:
    assert not is_safe_ref(ref)


def test_safe_repo_paths() -> None:
    assert safe_repo_path("./.mmr.yaml") == ".mmr.yaml"
    assert safe_repo_path(".mmr/acks/x.json") == ".mmr/acks/x.json"
    assert safe_repo_path("a..b/c") == "a..b/c"  # only a whole '..' segment escapes
    for bad in ["", "./", "../x", "a/../b", "a:b"]:
        assert safe_repo_path(bad) is None


@pytest.mark.parametrize("env,expected", [
    ({}, False),
    ({"CI": "true"}, True), ({"CI": "1"}, True), ({"CI": "no"}, True),
    ({"CI": "anything"}, True),
    ({"CI": "false"}, False), ({"CI": "FALSE"}, False), ({"CI": "0"}, False),
    ({"CI": ""}, False),
    ({"GITHUB_ACTIONS": "true"}, True), ({"GITLAB_CI": "x"}, True), ({"BUILDKITE": "1"}, True),
    ({"TF_BUILD": "True"}, True), ({"JENKINS_URL": "http://j"}, True),
    ({"TEAMCITY_VERSION": "2024"}, True), ({"GITHUB_ACTIONS": ""}, False),
    ({"CIRCLECI": "true"}, False), ({"CI": "false", "GITLAB_CI": "true"}, True),
])
def test_ci_detection(env: dict[str, str], expected: bool) -> None:
    assert is_ci(env) is expected


def test_ci_detection_reads_the_process_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert not is_ci()
    monkeypatch.setenv("BUILDKITE", "true")
    assert is_ci()


@pytest.mark.parametrize("diff,config,acks", [
    ("diff --git a/.mmr.yaml b/.mmr.yaml\n", True, ()),
    ("--- .mmr.yaml\n+++ .mmr.yaml\n", True, ()),  # --no-prefix / plain diff -u
    ("--- old/.MMR.YAML\t2024\n+++ new/.MMR.YAML\t2024\n", True, ()),
    ("diff --cc .mmr.yaml\n", True, ()),
    ('diff --git "a/.mmr.yaml" "b/.mmr.yaml"\n', True, ()),
    ("diff --git a/sub/.mmr.yaml b/sub/.mmr.yaml\n", True, ()),
    ("diff --git a/.mmr.yml b/.mmr.yml\n", False, ()),
    ("diff --git a/x.mmr.yaml b/x.mmr.yaml\n", False, ()),
    ("rename from .mmr/acks/" + KEY + ".json\nrename to other.json\n", False,
     (".mmr/acks/" + KEY + ".json",)),
    ("--- a/.mmr/acks/" + KEY + ".json\n+++ /dev/null\n", False,
     (".mmr/acks/" + KEY + ".json",)),
    ("diff --git a/.mmr/acks/k.json b/.mmr/acks/k.json\n--- a/.mmr/acks/k.json\n"
     "+++ b/.mmr/acks/k.json\n", False, (".mmr/acks/k.json",)),
    ("diff --git a/README b/README\n@@ -1 +1 @@\n+see .mmr.yaml and .mmr/acks/x.json\n"
     " .mmr.yaml\n", False, ()),
])
def test_detection_variants(diff: str, config: bool, acks: tuple[str, ...]) -> None:
    found = detect_proposed_changes(diff)
    assert (found.config_file_changed, found.ack_files_changed) == (config, acks)


def test_detection_includes_excluded_paths() -> None:
    found = detect_proposed_changes("", extra_paths=[".mmr.yaml", ".mmr/acks/k.json"])
    assert found == ProposedChanges(True, (".mmr/acks/k.json",))


def test_job_fields_only_when_applicable() -> None:
    assert ProposedChanges().job_fields() == {}
    assert ProposedChanges(True, ("a",)).job_fields() == {
        "proposed_acks": ["a"], "proposed_config_change": True}


def _context(mode: TrustMode, **flags: bool) -> TrustContext:
    return TrustContext(mode=mode, trusted_ref="HEAD" if mode == "base-ref" else None,
                        project_root=Path("/repo"), flags=TrustFlags(**flags),
                        project_config=None, warnings=())


BOTH = ProposedChanges(True, (".mmr/acks/k.json",))


@pytest.mark.parametrize("flags,blocked", [
    ({}, (True, True)),
    ({"trust_project_config": True}, (False, True)),
    ({"accept_new_acks": True}, (True, False)),
    ({"trust_project_acks": True}, (True, False)),
    ({"trust_project_config": True, "accept_new_acks": True}, None),
])
def test_gate_in_base_ref_mode(flags: dict[str, bool],
                               blocked: tuple[bool, bool] | None) -> None:
    block = ratification_gate(_context("base-ref", **flags), BOTH)
    assert (None if block is None else (block.config, block.acks)) == blocked


@pytest.mark.parametrize("mode", ["untrusted-head", "non-git"])
def test_gate_never_fires_elsewhere(mode: TrustMode) -> None:
    assert ratification_gate(_context(mode), BOTH) is None


def test_gate_passes_a_diff_that_proposes_nothing() -> None:
    assert ratification_gate(_context("base-ref"), ProposedChanges()) is None


@pytest.mark.parametrize("config,acks,reason", [
    (True, True, "the diff proposes project config (.mmr.yaml) and ack changes"),
    (True, False, "the diff proposes a project config change (.mmr.yaml)"),
    (False, True, "the diff proposes project ack changes (.mmr/acks/)"),
])
def test_gate_reasons(config: bool, acks: bool, reason: str) -> None:
    block = GateBlock(config=config, acks=acks, proposed=BOTH)
    assert block.reason == reason
    assert block.summary == (f"Needs user decision — {reason}. Re-run with "
                             "--trust-project-config (.mmr.yaml) / --accept-new-acks (acks) "
                             "to proceed.")


def test_base_ref_mode_carries_its_ref() -> None:
    with pytest.raises(ValueError, match="base_ref"):
        TrustClassification("base-ref")
    with pytest.raises(ValueError, match="base_ref"):
        TrustClassification("untrusted-head", base_ref="main")


def test_review_controls_key_order_and_effective_ack_trust() -> None:
    controls = _context("base-ref", accept_new_acks=True).review_controls(3)
    assert list(controls) == ["max_rounds", "accept_new_acks", "trust_project_acks",
                              "trust_project_config", "config_base_ref"]
    assert controls["trust_project_acks"] is True
    assert "config_base_ref" not in _context("untrusted-head").review_controls(3)
