"""A review's run totals of tokens and cost, and a finding's exact ``replacement`` text."""

from __future__ import annotations

import json

from tests.fakes.plugin import FakeCliFactory
from tests.integration.git_repo_builder import GitRepo
from tests.integration.review.conftest import CLEAN, RunMmr, finding, reply, write_user_config

TELEMETRY = {"input_tokens": "$.usage.input_tokens", "output_tokens": "$.usage.output_tokens",
             "cost_usd": "$.total_cost_usd"}
UNWRAP = {"kind": "unwrap-jsonpath", "wrap": "$.result"}


def envelope(answer: dict[str, object], tokens_in: int, tokens_out: int,
             cost: float | None) -> dict[str, object]:
    data: dict[str, object] = {"result": json.dumps(answer),
                               "usage": {"input_tokens": tokens_in, "output_tokens": tokens_out}}
    if cost is not None:
        data["total_cost_usd"] = cost
    return data


def test_run_totals_sum_what_the_channels_reported(repo: GitRepo, fake_cli: FakeCliFactory,
                                                   run_mmr: RunMmr) -> None:
    fake_cli("rev1", stdout=envelope(CLEAN, 1200, 80, 0.1))
    fake_cli("rev2", stdout=envelope(CLEAN, 300, 20, 0.2))
    fake_cli("rev3", stdout=CLEAN)  # reports no figures
    write_user_config({
        name: {"command": name, "flags": [f"--{name}"], "output_parser": UNWRAP,
               "telemetry": TELEMETRY} for name in ("rev1", "rev2")
    } | {"rev3": {"command": "rev3"}})
    document = run_mmr("review", "--sync", "--format", "json", cwd=repo.root).json()
    meta = document["metadata"]
    assert (meta["input_tokens"], meta["output_tokens"], meta["total_cost_usd"]) == (
        1500, 100, 0.3)
    for fmt, line in (("text", "Run total: tokens in 1,500 · out 100 · cost $0.3000"),
                      ("markdown", "**Run total:** tokens in 1,500 · out 100 · cost $0.3000")):
        out = run_mmr("review", "--sync", "--format", fmt, cwd=repo.root).out
        assert line in out.splitlines()


def test_no_reported_figures_no_totals(repo: GitRepo, fake_cli: FakeCliFactory,
                                       run_mmr: RunMmr) -> None:
    fake_cli("rev1", stdout=CLEAN)
    fake_cli("rev2", stdout=CLEAN)
    write_user_config({"rev1": {"command": "rev1"}, "rev2": {"command": "rev2", "flags": ["-2"]}})
    document = run_mmr("review", "--sync", "--format", "json", cwd=repo.root).json()
    assert not {"input_tokens", "output_tokens", "total_cost_usd"} & set(document["metadata"])
    assert "Run total" not in run_mmr("review", "--sync", "--format", "text",
                                      cwd=repo.root).out


def test_replacement_reaches_the_json_redacted(repo: GitRepo, fake_cli: FakeCliFactory,
                                               run_mmr: RunMmr) -> None:
    key = "AKIA" + "Z7QXW4PLM2NR8KTB"
    fixed = finding("src/app.py:2") | {
        "replacement": f"    for i in range(n):  # {key}\n"}
    odd = finding("src/app.py:3", "P2", "Prints in the loop") | {"replacement": 7}
    rev1 = fake_cli("rev1", stdout=reply(fixed, odd))
    fake_cli("rev2", stdout=reply(fixed, odd))
    write_user_config({"rev1": {"command": "rev1"}, "rev2": {"command": "rev2", "flags": ["-2"]}})
    result = run_mmr("review", "--sync", "--format", "json", cwd=repo.root)
    first, second = result.json()["reconciled_findings"]
    assert first["replacement"] == "    for i in range(n):  # <redacted:aws-access-key>\n"
    assert first["suggestion"] == "Use < instead of <="  # the free text keeps its meaning
    assert "replacement" not in second  # not text: dropped, the finding kept
    assert key not in result.out
    # The prompt's output format asks for the field.
    assert "- `replacement` (optional): only when the fix is a drop-in edit" in (
        rev1.last_call()["stdin"])
