"""Every SARIF log mmr prints validates against the official SARIF 2.1.0 schema (OASIS, errata01).

The schema is read from the steering repository's ``shared/data/sarif/`` beside this checkout
(CI has it); where it is absent the test says so and skips.
"""

from __future__ import annotations

import json

import pytest

from mmr.formatters import render
from tests.sarif_schema import sarif_errors

from .ci_samples import CI_SAMPLES
from .samples import SAMPLES

ALL_SAMPLES = {**SAMPLES, **CI_SAMPLES}


@pytest.mark.parametrize("stem", sorted(ALL_SAMPLES))
def test_every_sample_validates_against_the_official_schema(stem):
    log = json.loads(render(ALL_SAMPLES[stem](), "sarif"))
    assert sarif_errors(log) == []


def test_sarif_tools_does_not_count_an_acknowledged_finding_as_live(tmp_path):
    loader = pytest.importorskip("sarif.loader")
    document = SAMPLES["results-blocked"]()
    acked = [f for f in document.reconciled_findings if f.acknowledged]
    assert acked, "the sample has an acknowledged finding"
    path = tmp_path / "log.sarif"
    path.write_text(render(document, "sarif"), encoding="utf-8")
    records = loader.load_sarif_file(str(path)).get_records()
    live = [r for r in records if r["Severity"] != "none"]
    assert len(live) == len(document.reconciled_findings) - len(acked)
    assert {r["Severity"] for r in records if r not in live} == {"none"}
