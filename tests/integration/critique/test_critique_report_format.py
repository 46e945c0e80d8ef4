"""The report's JSON shape and text layout, from built reports."""

from __future__ import annotations

import json

from mmr.critique.context import RepoContext
from mmr.critique.models import (
    ChannelEntry,
    ReconciledItem,
    SkippedContext,
    Split,
    SplitPosition,
    SynthesisResult,
)
from mmr.critique.report import (
    NO_CHANNELS_SUMMARY,
    RoundInfo,
    build_report,
    empty_report,
    render_json,
    summary_line,
)
from mmr.critique.text import render_text


def _item(index: int, agreement: str, kind: str = "concern", *, observation: str = "Obs",
          recommendation: str | None = None, sources: tuple[str, ...] = ("ca",)) -> ReconciledItem:
    return ReconciledItem.model_validate({
        "kind": kind, "theme": "scale", "observation": observation,
        "recommendation": recommendation, "id": f"C-{index:03d}", "sources": list(sources),
        "agreement": agreement, "observation_shingle": [],
    })


ITEMS = [_item(1, "consensus", sources=("ca", "cb")), _item(2, "majority", sources=("ca", "cb")),
         _item(3, "unique"), _item(4, "unique", "open-question")]


def test_summary_counts() -> None:
    assert summary_line(ITEMS, completed=2, dispatched=3, lensed=False) == \
        "4 item(s) across 2 of 3 channel(s) — 1 consensus, 2 single-model"
    assert summary_line(ITEMS, completed=2, dispatched=3, lensed=True) == \
        "4 item(s) across 2 of 3 channel(s) — 2 agreed, 2 single-model"
    assert summary_line([], completed=0, dispatched=2, lensed=False) == NO_CHANNELS_SUMMARY
    assert summary_line([], completed=0, dispatched=0, lensed=False) == NO_CHANNELS_SUMMARY


def _report(**overrides: object) -> str:
    base: dict[str, object] = {
        "job_id": "mmr-0123456789ab", "source": "d.md", "items": ITEMS[:1],
        "per_channel": {"ca": ChannelEntry(status="completed", item_count=1, summary="ok"),
                        "cb": ChannelEntry(status="failed", item_count=0, reason="parse_error")},
        "dispatched": 2, "completed": 1, "elapsed_s": 2.5, "context": None, "lenses": (),
        "synthesis": SynthesisResult(), "session": None,
    }
    base.update(overrides)
    return render_json(build_report(**base))  # type: ignore[arg-type]


def test_json_keys_in_order_and_optional_keys_only_when_present() -> None:
    minimal = json.loads(_report())
    assert list(minimal) == ["kind", "job_id", "artifact_source", "items", "per_channel",
                             "summary", "metadata"]
    assert minimal["metadata"] == {"channels_dispatched": 2, "channels_completed": 1,
                                   "total_elapsed": "3s"}
    assert minimal["per_channel"]["cb"] == {"status": "failed", "item_count": 0,
                                            "reason": "parse_error"}
    assert "recommendation" not in minimal["items"][0]
    context = RepoContext("blob", ("a.py",), (SkippedContext(path=".env", reason="secret file"),))
    split = Split(theme="t", positions=[SplitPosition(stance="s", item_ids=[], sources=[])] * 2,
                  crux="")
    full = json.loads(_report(context=context, lenses=("skeptic",),
                              synthesis=SynthesisResult(splits=(split,), synthesis="Prose."),
                              session=RoundInfo("s1", 2)))
    assert list(full)[7:] == ["context_used", "context_skipped", "lenses", "splits", "synthesis",
                              "session_id", "round"]
    assert full["context_skipped"] == [{"path": ".env", "reason": "secret file"}]


def test_empty_report_omits_lenses_session_and_synthesis() -> None:
    context = RepoContext("blob", ("a.py",), ())
    report = empty_report("stdin", {"cx": ChannelEntry(status="not_installed", item_count=0,
                                                       recovery="cx not found on PATH")},
                          context)
    assert list(json.loads(render_json(report))) == [
        "kind", "job_id", "artifact_source", "items", "per_channel", "summary", "metadata",
        "context_used"]
    text = render_text(report)
    assert text == (
        "CRITIQUE · stdin · 1 channel · advisory (no gate)\n\n"
        "No critique items were returned.\n\n"
        "CONTEXT USED — repo files the models judged the design against\n  a.py\n\n"
        "CHANNELS\n  cx: not_installed — cx not found on PATH\n\n"
        f"SYNTHESIS\n  {NO_CHANNELS_SUMMARY}")


def test_text_layout_of_every_section() -> None:
    items = [_item(1, "majority", observation="Two\nlines", recommendation="Fix it",
                   sources=("ca", "cb")),
             _item(2, "unique", "alternative"), _item(3, "unique", "open-question")]
    split = Split(theme="transport", crux="", positions=[
        SplitPosition(stance="Queue", item_ids=["C-001", "C-002"], sources=[]),
        SplitPosition(stance="Poll", item_ids=[], sources=["cb"])])
    context = RepoContext("blob", (), (SkippedContext(path="big.txt",
                                                      reason="over the context budget"),))
    text = render_text(build_report(
        job_id="mmr-0123456789ab", source="d.md", items=items,
        per_channel={"ca": ChannelEntry(status="completed", item_count=2),
                     "cb": ChannelEntry(status="completed", item_count=1),
                     "cx": ChannelEntry(status="timeout", item_count=0)},
        dispatched=3, completed=2, elapsed_s=1, context=context, lenses=(),
        synthesis=SynthesisResult(splits=(split,), synthesis="Short prose (C-001)."),
        session=RoundInfo("s1", 3)))
    assert text == (
        "CRITIQUE · d.md · 3 channels · round 3 · advisory (no gate)\n\n"
        "CONVERGENCE — independent models agreed (high signal)\n"
        "  • [concern · majority] scale — Two\n    lines\n"
        "      ↳ Fix it\n      sources: ca, cb\n\n"
        "DIVERGENCE — models split (your judgment call)\n"
        "  ▲ transport\n      - Queue (sources: —) [C-001, C-002]\n"
        "      - Poll (sources: cb)\n\n"
        "ALTERNATIVES\n  • scale — Obs\n      sources: ca\n\n"
        "OPEN QUESTIONS\n  • scale — Obs\n      sources: ca\n\n"
        "CONTEXT USED — repo files the models judged the design against\n"
        "  (none)\n  left out: big.txt (over the context budget)\n\n"
        "CHANNELS\n  ca: 2 item(s)\n  cb: 1 item(s)\n  cx: timeout\n\n"
        "SYNTHESIS\n  Short prose (C-001).\n"
        "  (3 item(s) across 2 of 3 channel(s) — 0 consensus, 2 single-model)")
