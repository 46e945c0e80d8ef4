"""``mmr explain [topic]``."""

from __future__ import annotations

import pytest

from mmr.cli.explain_cmd import TOPICS
from mmr.cli.main import main
from mmr.resources import templates_dir

LISTING = ("Topics: channels, compensation, config, explore, minimax, provenance, redaction, "
           "scopes, severity, trust\nRun `mmr explain <topic>` for any of them.\n")


def cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_no_topic_lists_them_alphabetically(capsys):
    assert cli(capsys, "explain") == (0, LISTING, "")
    assert list(TOPICS) == sorted(TOPICS)


def test_every_topic_has_its_own_text_and_no_text_lacks_a_topic():
    shipped = sorted(p.stem for p in (templates_dir() / "explain").glob("*.md"))
    assert shipped == sorted(TOPICS)


@pytest.mark.parametrize("topic", TOPICS)
def test_each_topic_prints_its_text(capsys, topic):
    code, out, err = cli(capsys, "explain", topic)
    assert (code, err) == (0, "")
    expected = (templates_dir() / "explain" / f"{topic}.md").read_text(encoding="utf-8")
    assert out == expected.rstrip() + "\n"
    assert len(out.splitlines()) > 5


def test_topics_match_case_insensitively(capsys):
    assert cli(capsys, "explain", "Channels") == cli(capsys, "explain", "channels")


def test_compensation_names_structural_and_the_opt_in(capsys):
    _, out, _ = cli(capsys, "explain", "compensation")
    assert "structural" in out.lower()
    assert "--compensate-missing" in out


def test_channels_mentions_the_retired_gemini_tombstone(capsys):
    _, out, _ = cli(capsys, "explain", "channels")
    assert "gemini" in out and "retired" in out


def test_unknown_topic_exits_1_naming_it(capsys):
    code, out, err = cli(capsys, "explain", "Bogus")
    assert (code, out) == (1, "")
    assert "Unknown topic 'Bogus'. Available: channels, compensation, config" in err


def test_two_topics_are_a_usage_error(capsys):
    code, _, err = cli(capsys, "explain", "a", "b")
    assert code == 1
    assert "mmr: error: unexpected argument 'b'\n" in err


def test_severity_topic_is_generated_from_the_one_scale():
    from mmr.severity import explain_text

    shipped = (templates_dir() / "explain" / "severity.md").read_text(encoding="utf-8")
    assert shipped == explain_text() + "\n"  # regenerate: python -m mmr.severity
