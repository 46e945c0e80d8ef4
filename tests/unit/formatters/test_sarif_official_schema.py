"""Every SARIF log mmr prints validates against the official SARIF 2.1.0 schema (OASIS, errata01).

The schema is read from the steering repository's ``shared/data/sarif/`` beside this checkout
(CI has it); where it is absent the test says so and skips.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mmr.formatters import render

from .ci_samples import CI_SAMPLES
from .samples import SAMPLES

REPO_ROOT = Path(__file__).resolve().parents[3]
OFFICIAL = REPO_ROOT.parent / "shared" / "data" / "sarif" / "sarif-schema-2.1.0.json"
ALL_SAMPLES = {**SAMPLES, **CI_SAMPLES}


@pytest.fixture(scope="module")
def validator():
    jsonschema = pytest.importorskip("jsonschema")
    if not OFFICIAL.is_file():
        pytest.skip(f"the official SARIF schema is not at {OFFICIAL}")
    schema = json.loads(OFFICIAL.read_text(encoding="utf-8"))
    return jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker())


@pytest.mark.parametrize("stem", sorted(ALL_SAMPLES))
def test_every_sample_validates_against_the_official_schema(stem, validator):
    log = json.loads(render(ALL_SAMPLES[stem](), "sarif"))
    errors = sorted(f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
                    for e in validator.iter_errors(log))
    assert errors == []


def test_the_official_schema_rejects_what_it_should(validator):
    log = json.loads(render(SAMPLES[sorted(SAMPLES)[0]](), "sarif"))
    log["runs"][0]["results"] = [{"level": "fatal", "message": {"text": "x"}}]
    assert list(validator.iter_errors(log))


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
