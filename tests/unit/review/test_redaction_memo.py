"""One results run redacts each distinct text once (issue 19), with the same outcome."""

from __future__ import annotations

from mmr.models import ChannelResult, Finding
from mmr.secrets.reply_redaction import redact_channel_result, redact_findings
from tests.unit.review.test_credential_formats import OPENAI


def test_a_shared_memo_redacts_every_occurrence_and_each_text_once() -> None:
    leaky = Finding(severity="P1", location="a.py:1", description=f"key {OPENAI} is logged",
                    suggestion="Rotate it.")
    clean = Finding(severity="P2", location="b.py:2", description="loop never ends",
                    suggestion="Rotate it.")
    memo: dict[str, str] = {}
    result = ChannelResult(status="completed", elapsed="1s", findings=[leaky, clean])
    entry = redact_channel_result(result, memo)
    again = redact_findings([leaky, clean, leaky], memo)
    assert OPENAI not in entry.findings[0].description
    assert [f.description for f in again] == [entry.findings[0].description,
                                              "loop never ends", entry.findings[0].description]
    assert again == redact_findings([leaky, clean, leaky])  # the same as without a memo
    # Each distinct text of the findings is in the memo once; nothing else is.
    texts = {t for f in (leaky, clean) for t in (f.location, f.description, f.suggestion)}
    assert set(memo) == texts
