"""Prompt layers and templates, and credential redaction of critique text."""

from __future__ import annotations

from pathlib import Path

import pytest

from mmr.critique.prompt import PromptParts, critique_template
from mmr.critique.session import SessionItem, SessionRound
from mmr.critique.synthesis import SYNTHESIS_TEMPLATE
from mmr.resources import read_template
from mmr.secrets.credentials import redact_credentials
from tests.fakes.plugin import FakeCliFactory
from tests.integration.critique.conftest import RunMmr, critique_reply, item, write_user_config

TOKEN = "ghp_" + "Zz09" * 9


def test_layers_come_in_order_separated_by_blank_lines() -> None:
    previous = SessionRound(round=1, artifact_source="a.md", items=(
        SessionItem(id="C-001", kind="concern", theme="cost", observation="Too costly."),))
    prompt = PromptParts("the artifact", focus="latency", previous=previous,
                         context="## Repository tree\n```\na.py\n```").assemble("security")
    headings = ["## Your lens\n", "# Design Critique\n", "\n\n## Focus Areas\nlatency\n\n",
                "\n\n## Previously raised (round 1)\n", "\n\n## Repository context\n",
                "\n\n## Artifact to critique\n```\nthe artifact\n```"]
    positions = [prompt.index(h) for h in headings]
    assert positions == sorted(positions)
    assert prompt.startswith("## Your lens\nRead this design with a security eye.")
    assert prompt.endswith("## Artifact to critique\n```\nthe artifact\n```")


def test_the_critique_template_carries_the_required_facts() -> None:
    template = critique_template()
    assert "This is a design critique, not a code review." in template
    for kind in ("`concern`", "`alternative`", "`consideration`", "`open-question`"):
        assert kind in template
    assert "Any kind may have no items at all." in template
    assert '{"items": [{"kind": "concern", "theme": "...", "observation": "...", ' \
           '"recommendation": "..."}], "summary": "..."}' in template
    assert "Do not rate severity and do not give a pass or fail judgement" in template
    assert "wording, spelling, formatting" in template


def test_the_synthesis_template_carries_the_required_facts() -> None:
    template = read_template(SYNTHESIS_TEMPLATE)
    for fact in ("You are not a judge", "opposite directions", "`crux`", "do not choose a side",
                 "An empty list of splits is a normal result", "two to four sentences",
                 "(C-001)", '{"splits": [', '"synthesis": "..."}'):
        assert fact in template


def test_plain_text_redaction() -> None:
    text = (f"token: {TOKEN}\nkey id AKIAABCDEFGHIJKLMNOP here\n"
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nabc\n-----END RSA PRIVATE KEY-----\n"
            "after\n")
    redacted, count = redact_credentials(text)
    assert count == 3
    assert redacted == ("token: <redacted:github-token>\nkey id <redacted:aws-access-key> here\n"
                        "<redacted:private-key>\n<redacted>\n<redacted>\n<redacted>\n"
                        "after\n")
    assert redact_credentials("nothing to see\n") == ("nothing to see\n", 0)


@pytest.fixture
def secret_design(tmp_path: Path) -> Path:
    (tmp_path / "design.md").write_text(f"Call the API with {TOKEN} from the cron host.\n")
    return tmp_path


def test_credentials_in_the_artifact_are_redacted_unless_a_channel_allows_them(
        secret_design: Path, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    safe = fake_cli("ca", stdout=critique_reply(item("Do not embed tokens in the design.")))
    trusting = fake_cli("cb", stdout=critique_reply(item("Rotate that token.")))
    write_user_config({"ca": {"command": "ca"},
                       "cb": {"command": "cb", "on_credentials": "allow"}})
    result = run_mmr("critique", "design.md", cwd=secret_design)
    assert result.code == 0
    assert "redacted 1 credential-shaped string(s)" in result.err
    assert TOKEN not in safe.last_call()["stdin"]
    assert "<redacted:github-token>" in safe.last_call()["stdin"]
    assert TOKEN in trusting.last_call()["stdin"]


def test_dry_run_shows_the_redacted_prompt(secret_design: Path, fake_cli: FakeCliFactory,
                                           run_mmr: RunMmr) -> None:
    write_user_config({"ca": {"command": "ca"}})
    result = run_mmr("critique", "design.md", "--dry-run", cwd=secret_design)
    assert TOKEN not in result.out + result.err
