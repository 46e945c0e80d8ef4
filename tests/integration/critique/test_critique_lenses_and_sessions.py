"""Persona lenses and iterative sessions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mmr.config.paths import jobs_dir, mmr_home, sessions_dir
from mmr.critique.lenses import BUILTIN_LENSES, assign_lenses, lens_preamble, parse_lenses
from mmr.critique.prompt import PromptParts, prior_round_layer
from mmr.critique.session import CritiqueSessionStore, SessionItem, SessionRound
from tests.fakes.plugin import FakeCliFactory
from tests.integration.critique.conftest import (
    RunMmr,
    critique_reply,
    item,
    job_ids,
    write_user_config,
)

POLLING = "Polling every table once a minute will not scale past a few hundred tables."
POLLING_2 = "Polling every table once a minute will not scale past a few hundred tables!"
SPOF = "A single cron host is a single point of failure\nfor all nightly reports."


# --- lenses ------------------------------------------------------------------------------

def test_lens_values_are_split_trimmed_and_cycled() -> None:
    lenses = parse_lenses(" skeptic, ,Chaos Monkey ,")
    assert lenses == ["skeptic", "Chaos Monkey"]
    assert assign_lenses(lenses, ["a", "b", "c"]) == {"a": "skeptic", "b": "Chaos Monkey",
                                                      "c": "skeptic"}
    assert assign_lenses([], ["a"]) == {}
    assert parse_lenses(None) == []


@pytest.mark.parametrize(("lens", "words"), [
    ("skeptic", ("does not work", "risks", "fail", "assumptions")),
    ("simplifier", ("smallest design", "does not require", "future")),
    ("user-advocate", ("end", "operators", "visible", "edge cases")),
    ("pragmatist", ("costs", "ship first", "wait", "to run and to keep")),
    ("security", ("trust boundaries", "exposed", "authentication", "authorisation", "abuse")),
    ("scale", ("hundred times", "data grows", "same time")),
])
def test_each_builtin_lens_covers_its_themes(lens: str, words: tuple[str, ...]) -> None:
    preamble = lens_preamble(lens.upper())  # lookup is case-insensitive
    assert lens in BUILTIN_LENSES
    for word in words:
        assert word in preamble


def test_other_names_get_a_generic_preamble_quoting_them() -> None:
    preamble = lens_preamble("Chaos Monkey")
    assert 'primarily from the perspective of "Chaos Monkey"' in preamble


@pytest.fixture
def three(fake_cli: FakeCliFactory, tmp_path: Path) -> Path:
    fake_cli("ca", stdout=critique_reply(item(POLLING)))
    fake_cli("cb", stdout=critique_reply(item(POLLING_2)))
    fake_cli("cc", stdout=critique_reply(item(SPOF, "open-question", "ops")))
    write_user_config({name: {"command": name} for name in ("ca", "cb", "cc")})
    (tmp_path / "design.md").write_text("Poll every table from one cron host.\n")
    return tmp_path


def test_lenses_are_cycled_over_channels_and_relabel_the_report(
        three: Path, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    result = run_mmr("critique", "design.md", "--lenses", "skeptic,Chaos Monkey",
                     "--format", "json", cwd=three)
    assert result.code == 0, result.err
    report = result.json()
    assert report["lenses"] == ["skeptic", "Chaos Monkey"]
    assert report["summary"] == "2 item(s) across 3 of 3 channel(s) — 1 agreed, 1 single-model"
    prompts = {name: _last_stdin(fake_cli, name) for name in ("ca", "cb", "cc")}
    assert prompts["ca"].startswith("## Your lens\nRead this design as a skeptic.")
    assert prompts["cb"].startswith('## Your lens\nCritique this design primarily from the '
                                    'perspective of "Chaos Monkey"')
    assert prompts["cc"] == prompts["ca"]
    assert prompts["ca"].index("## Your lens") < prompts["ca"].index("# Design Critique")
    base = (jobs_dir() / report["job_id"] / "prompt.txt").read_text()
    assert base.startswith("# Design Critique") and "## Your lens" not in base

    text = run_mmr("critique", "design.md", "--lenses", "skeptic,Chaos Monkey", cwd=three).out
    assert text.startswith("CRITIQUE · design.md · 3 channels · lenses: skeptic, Chaos Monkey · "
                           "advisory (no gate)")
    assert "PERSPECTIVES — raised by more than one channel\n  • [concern · perspective] " in text
    assert "CONVERGENCE" not in text


def _last_stdin(factory: FakeCliFactory, name: str) -> str:
    lines = (factory.records_dir / f"{name}.jsonl").read_text().splitlines()
    stdin = json.loads(lines[-1])["stdin"]
    assert isinstance(stdin, str)
    return stdin


# --- sessions ----------------------------------------------------------------------------

def test_prior_round_layer_lists_items_and_marks_missing_fields() -> None:
    layer = prior_round_layer(SessionRound(round=2, artifact_source="d.md", items=(
        SessionItem(id="C-001", kind="concern", theme="scale", observation="Line one\n  two"),
        SessionItem(observation=None),
    )))
    lines = layer.splitlines()
    assert lines[0] == "## Previously raised (round 2)"
    assert lines[-2:] == ["- [C-001] (concern · scale): Line one two", "- [?] (? · ?): ?"]
    assert lines[2] == ""


def test_a_round_without_items_adds_no_layer() -> None:
    empty = SessionRound(round=1, artifact_source="d.md")
    assert "Previously raised" not in PromptParts("x", previous=empty).assemble()


def test_two_round_session(three: Path, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    first = run_mmr("critique", "design.md", "--session", "s1", "--format", "json", cwd=three)
    assert first.code == 0, first.err
    report = first.json()
    assert (report["session_id"], report["round"]) == ("s1", 1)
    assert "Previously raised" not in _last_stdin(fake_cli, "ca")
    stored = json.loads((mmr_home() / "critique-sessions" / "s1.json").read_text())
    assert stored == [{"round": 1, "artifact_source": "design.md", "items": [
        {"id": i["id"], "kind": i["kind"], "theme": i["theme"], "observation": i["observation"]}
        for i in report["items"]]}]
    job = json.loads((jobs_dir() / report["job_id"] / "job.json").read_text())
    assert (job["kind"], job["session_id"], job["round"]) == ("critique", "s1", 1)

    (three / "design-v2.md").write_text("Use a work queue fed by change data capture.\n")
    second = run_mmr("critique", "design-v2.md", "--session", "s1", "--format", "json",
                     cwd=three)
    assert second.code == 0
    assert (second.json()["session_id"], second.json()["round"]) == ("s1", 2)
    prompt = _last_stdin(fake_cli, "cb")
    assert "## Previously raised (round 1)\nThe artifact below is a revision" in prompt
    assert f"- [C-001] (concern · scale): {POLLING_2}" in prompt
    assert ("- [C-002] (open-question · ops): A single cron host is a single point of failure "
            "for all nightly reports.") in prompt
    assert prompt.index("## Previously raised") < prompt.index("## Artifact to critique")
    assert prompt.rstrip("`\n").endswith("change data capture.")
    rounds = CritiqueSessionStore(mmr_home() / "critique-sessions").rounds("s1")
    assert [(r.round, r.artifact_source) for r in rounds] == [(1, "design.md"),
                                                              (2, "design-v2.md")]
    assert not sessions_dir().exists()  # review sessions are a different store


def test_a_run_where_nothing_completed_does_not_advance_the_session(
        tmp_path: Path, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    fake_cli("broken", exit_code=2)
    write_user_config({"broken": {"command": "broken"}})
    (tmp_path / "design.md").write_text("A plan.\n")
    result = run_mmr("critique", "design.md", "--session", "s2", "--format", "json",
                     cwd=tmp_path)
    assert result.code == 0
    assert result.json()["round"] == 1
    assert not (mmr_home() / "critique-sessions" / "s2.json").exists()
    assert len(job_ids()) == 1


def test_dry_run_reads_the_session_but_never_appends(three: Path, run_mmr: RunMmr) -> None:
    store = CritiqueSessionStore(mmr_home() / "critique-sessions")
    store.append("s3", SessionRound(round=1, artifact_source="old.md", items=(
        SessionItem(id="C-001", kind="concern", theme="cost", observation="Too expensive."),)))
    result = run_mmr("critique", "design.md", "--session", "s3", "--dry-run", cwd=three)
    assert "- [C-001] (concern · cost): Too expensive." in result.out
    assert len(store.rounds("s3")) == 1


def test_an_unparsable_session_file_reads_as_empty(three: Path, run_mmr: RunMmr) -> None:
    path = mmr_home() / "critique-sessions" / "s4.json"
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    result = run_mmr("critique", "design.md", "--session", "s4", "--format", "json", cwd=three)
    assert result.code == 0
    assert result.json()["round"] == 1
    assert "critique session file" in result.err and "unreadable" in result.err
    assert [r.round for r in CritiqueSessionStore(path.parent).rounds("s4")] == [1]


def test_rounds_written_by_another_tool_are_read_leniently(tmp_path: Path) -> None:
    path = tmp_path / "s5.json"
    path.write_text(json.dumps([{"round": 1, "artifact_source": "a.md",
                                 "items": [{"id": "C-001", "observation": "x", "extra": 1}]},
                                "junk", {"items": "nope"}]))
    rounds = CritiqueSessionStore(tmp_path).rounds("s5")
    assert [(r.round, r.artifact_source, len(r.items)) for r in rounds] == [
        (1, "a.md", 1), (3, "?", 0)]
    assert rounds[0].items[0].kind is None
