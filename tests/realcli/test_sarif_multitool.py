"""mmr's SARIF passes the SARIF multitool's own validation with GitHub's rules (``Sarif;Gh``).

The multitool is Microsoft's reference SARIF validator; its ``Gh`` rules are what GitHub
code scanning requires (``help`` on every rule, GH2012, among them).
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest

from mmr.formatters import render
from tests.realcli.npm_tools import npm_install
from tests.unit.formatters.ci_samples import CI_SAMPLES
from tests.unit.formatters.samples import SAMPLES

pytestmark = pytest.mark.realcli

VERSION = "5.7.0"


@pytest.fixture(scope="module")
def multitool() -> Path:
    modules = npm_install("@microsoft/sarif-multitool", VERSION)
    binary = modules / "@microsoft" / "sarif-multitool-linux" / "Sarif.Multitool"
    assert binary.exists(), (f"the multitool ships no binary for this platform ({binary} "
                             "missing): deselect these tests with -m 'not realcli'")
    # npm may not run the package's postinstall (chmod), so make it executable here.
    binary.chmod(binary.stat().st_mode | stat.S_IXUSR)
    return binary


def validate(multitool: Path, logs: list[Path], out: Path) -> list[dict[str, object]]:
    done = subprocess.run(
        [str(multitool), "validate", "--rule-kind", "Sarif;Gh", *map(str, logs), "-o", str(out)],
        capture_output=True, text=True, timeout=300, check=False,
        env={**os.environ, "DOTNET_CLI_TELEMETRY_OPTOUT": "1"},
    )
    assert out.exists(), done.stdout + done.stderr
    report = json.loads(out.read_text(encoding="utf-8-sig"))
    return [r for run in report["runs"] for r in run.get("results", [])]


def test_every_sample_passes_the_multitool_with_githubs_rules(multitool, tmp_path):
    logs = []
    for name, make in {**SAMPLES, **CI_SAMPLES}.items():
        path = tmp_path / f"{name}.sarif"
        path.write_text(render(make(), "sarif"), encoding="utf-8")
        logs.append(path)
    problems = validate(multitool, logs, tmp_path / "validation.sarif")
    assert [(p["ruleId"], p["message"]) for p in problems] == []


def test_the_multitool_flags_a_rule_without_help(multitool, tmp_path):
    log = json.loads(render(SAMPLES["results-blocked"](), "sarif"))
    del log["runs"][0]["tool"]["driver"]["rules"][0]["help"]
    path = tmp_path / "no-help.sarif"
    path.write_text(json.dumps(log), encoding="utf-8")
    problems = validate(multitool, [path], tmp_path / "validation.sarif")
    assert "GH2012" in {p["ruleId"] for p in problems}
