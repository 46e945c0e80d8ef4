"""Every SARIF log mmr prints validates against the official SARIF 2.1.0 schema (OASIS, errata01).

The schema is kept in ``tests/data/sarif/`` (its README gives the source and licence).
"""

from __future__ import annotations

import json
from typing import Any

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


def _effective_level(result: dict[str, Any], rules: list[dict[str, Any]]) -> str:
    """A result's level as a SARIF reader settles it: its own ``level``, else its rule's
    ``defaultConfiguration.level``, else ``warning``."""
    if "level" in result:
        return str(result["level"])
    rule = rules[result["ruleIndex"]] if "ruleIndex" in result else {}
    return str(rule.get("defaultConfiguration", {}).get("level", "warning"))


def test_a_reader_counting_by_level_does_not_count_an_acknowledged_finding():
    document = SAMPLES["results-blocked"]()
    acked = [f for f in document.reconciled_findings if f.acknowledged]
    assert acked, "the sample has an acknowledged finding"
    [run] = json.loads(render(document, "sarif"))["runs"]
    rules = run["tool"]["driver"].get("rules", [])
    levels = [_effective_level(result, rules) for result in run["results"]]
    assert len([level for level in levels if level != "none"]) == (
        len(document.reconciled_findings) - len(acked))
    assert levels.count("none") == len(acked)
