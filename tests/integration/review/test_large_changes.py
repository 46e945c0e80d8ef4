"""Large changes reviewed whole (issue 30): prompt budgets, shards, coverage, generated files.

The reviewers are real executables on PATH: each keeps the prompt it received in its own
directory, answers one P3 finding per file it was shown (so agreement can be counted), and
fails when its prompt holds a marker the test chooses.
"""

from __future__ import annotations

import json
import re
import stat
import sys
from pathlib import Path

import pytest

from mmr.diff.shards import estimate_tokens
from tests.cli_runner import RunMmr
from tests.integration.git_repo_builder import GitRepo
from tests.integration.review.conftest import write_user_config

BUDGET = 3000
FILES = [f"src/f{i:02d}.py" for i in range(40)]
_REVIEWER = """#!{python}
import json, os, re, sys, time
prompt = sys.stdin.read()
if not prompt:  # mmr's --version probe
    sys.exit(0)
out = {out!r}
os.makedirs(out, exist_ok=True)
with open(os.path.join(out, f"{{time.time_ns()}}-{{os.getpid()}}.txt"), "w") as f:
    f.write(prompt)
fail = os.environ.get("FAIL_ON")
if fail and fail in prompt:
    sys.exit(1)
files = sorted(set(re.findall(r"^\\+\\+\\+ b/(.+)$", prompt, re.M)))
print(json.dumps({{"approved": True, "summary": "ok", "findings": [
    {{"severity": "P3", "location": f"{{p}}:1", "description": f"Unused helper in {{p}}",
      "suggestion": "Remove it"}} for p in files]}}))
"""


def reviewer(bin_dir: Path, name: str, out: Path) -> None:
    path = bin_dir / name
    path.write_text(_REVIEWER.format(python=sys.executable, out=str(out)))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def body(index: int, lines: int = 40, value: int = 1) -> str:
    return "".join(f"def helper_{index}_{n}(x):\n    return x * {value} + {n}\n"
                   for n in range(lines // 2))


@pytest.fixture
def large(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[GitRepo, Path]:
    """A repository whose work tree adds 40 files of 40 lines, and two reviewers."""
    repo = GitRepo.create(tmp_path / "repo", {"README.md": "large change\n"})
    repo.write({path: body(i) for i, path in enumerate(FILES)})
    repo.git("add", "-A")  # new files: staged, so the working-tree diff shows them
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("rev1", "rev2"):
        reviewer(bin_dir, name, tmp_path / "prompts" / name)
    monkeypatch.setenv("PATH", f"{bin_dir}:{Path(sys.executable).parent}:/usr/bin:/bin")
    write_user_config({name: {"command": name, "max_prompt_tokens": BUDGET}
                       for name in ("rev1", "rev2")})
    return repo, tmp_path / "prompts"


def prompts(root: Path, name: str) -> list[str]:
    return [p.read_text() for p in sorted((root / name).glob("*.txt"))]


def review(run_mmr: RunMmr, repo: GitRepo, *args: str, code: int = 0) -> dict:
    done = run_mmr("review", "--sync", "--staged", "--format", "json", *args, cwd=repo.root)
    assert done.code == code, done.err
    return json.loads(done.out)


def test_every_file_is_in_some_shard_of_every_channel(large, run_mmr) -> None:
    repo, root = large
    result = review(run_mmr, repo)
    assert result["verdict"] == "pass"
    for name in ("rev1", "rev2"):
        sent = prompts(root, name)
        assert len(sent) > 1  # the change did not fit one prompt
        for prompt in sent:
            assert estimate_tokens(prompt) <= BUDGET
            assert re.search(rf"## Part \d+ of {len(sent)}\n", prompt)
            assert all(json.dumps(path) in prompt for path in FILES)  # the whole change listed
        shown = {f for p in sent for f in re.findall(r"^\+\+\+ b/(.+)$", p, re.M)}
        assert shown == set(FILES)
        assert result["per_channel"][name]["status"] == "completed"
    coverage = result["coverage"]
    assert coverage["partial"] is False
    assert {c["channel"]: c["shards"] for c in coverage["channels"]} == {
        "rev1": len(prompts(root, "rev1")), "rev2": len(prompts(root, "rev2"))}
    assert not any(c.get("unreviewed_files") for c in coverage["channels"])
    # The shards of one channel are one reviewer: each file's finding has two voices.
    findings = result["reconciled_findings"]
    assert len(findings) == len(FILES)
    assert {(f["agreement"], tuple(f["sources"])) for f in findings} == {
        ("consensus", ("rev1", "rev2"))}


def test_a_failed_shard_makes_the_channel_partial_never_silent(large, run_mmr,
                                                               monkeypatch) -> None:
    repo, _ = large
    monkeypatch.setenv("FAIL_ON", "+++ b/src/f07.py")
    result = review(run_mmr, repo)
    assert result["verdict"] == "degraded-pass"
    assert "rev1 did not review" in result["summary"]
    coverage = result["coverage"]
    assert coverage["partial"] is True
    for entry in coverage["channels"]:
        assert "src/f07.py" in entry["unreviewed_files"]
        assert "src/f39.py" not in entry["unreviewed_files"]
    assert result["per_channel"]["rev1"]["status"] == "completed"
    # Blocked on what the other shards found, the verdict line still says what was not read.
    blocked = review(run_mmr, repo, "--fix-threshold", "P3", code=2)
    assert blocked["verdict"] == "blocked"
    [rev1] = [c for c in blocked["coverage"]["channels"] if c["channel"] == "rev1"]
    assert f"rev1 did not review {len(rev1['unreviewed_files'])} file(s)" in blocked["summary"]


def test_a_follow_up_resends_only_the_changed_shard(large, run_mmr) -> None:
    repo, root = large
    review(run_mmr, repo)
    first = len(prompts(root, "rev1"))
    repo.write({"src/f21.py": body(21, value=2)})  # same size: the same cuts
    repo.git("add", "-A")
    review(run_mmr, repo)
    resent = prompts(root, "rev1")[first:]
    assert len(resent) == 1 and "+++ b/src/f21.py" in resent[0]


def review_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_mmr: RunMmr,
                 repo: GitRepo) -> tuple[dict, str]:
    """One reviewer, no budget: the review's JSON and the prompt the reviewer got."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    reviewer(bin_dir, "rev1", tmp_path / "prompts" / "rev1")
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    write_user_config({"rev1": {"command": "rev1"}}, {"min_completed_channels": 1})
    result = review(run_mmr, repo)
    return result, prompts(tmp_path / "prompts", "rev1")[-1]


def test_dry_run_shows_each_channels_shard_plan(large, run_mmr) -> None:
    repo, _ = large
    done = run_mmr("review", "--dry-run", "--staged", "--format", "json", cwd=repo.root)
    assert done.code == 0, done.err
    channels = json.loads(done.out)["channels"]
    for entry in channels:
        assert entry["max_prompt_tokens"] == BUDGET
        assert entry["estimated_tokens"] > BUDGET
        assert len(entry["shards"]) > 1
        assert {f for s in entry["shards"] for f in s["files"]} == set(FILES)
        assert all(s["estimated_tokens"] <= BUDGET for s in entry["shards"])
    text = run_mmr("review", "--dry-run", "--staged", cwd=repo.root)
    assert re.search(r"rev1: would dispatch\n(.*\n){3}  prompt: ~\d+ estimated tokens, "
                     r"budget 3000, \d+ shards\n    shard-1 \(~\d+ tokens\): src/f00.py",
                     text.out)


def test_generated_and_lock_files_are_summarised_not_sent(tmp_path, run_mmr,
                                                          monkeypatch) -> None:
    repo = GitRepo.create(tmp_path / "repo", {
        "app.py": "x = 1\n", ".gitattributes": "gen/** linguist-generated\n"})
    repo.write({"app.py": "x = 2\n", "package-lock.json": '{"lockfileVersion": 3}\n',
                "gen/schema_pb.py": "SCHEMA = 'generated'\n",
                # The branch cannot unmark its own files: attributes come from HEAD.
                ".gitattributes": "gen/** -linguist-generated\n"})
    repo.git("add", "-A")
    result, prompt = review_alone(tmp_path, monkeypatch, run_mmr, repo)
    assert "lockfileVersion" not in prompt and "SCHEMA = " not in prompt
    assert '"package-lock.json" (+1 -0 lines)' in prompt
    assert '"gen/schema_pb.py" (+1 -0 lines)' in prompt
    assert "x = 2" in prompt
    assert result["coverage"]["summarised_files"] == ["gen/schema_pb.py", "package-lock.json"]

    write_user_config({"rev1": {"command": "rev1"}},
                      {"min_completed_channels": 1, "review_generated": True})
    result = review(run_mmr, repo)
    prompt = prompts(tmp_path / "prompts", "rev1")[-1]
    assert "lockfileVersion" in prompt and "SCHEMA = " in prompt
    assert "summarised_files" not in result["coverage"] or \
        result["coverage"]["summarised_files"] is None


def test_the_detached_worker_reviews_the_shards_too(large, run_mmr) -> None:
    repo, root = large
    started = run_mmr("review", "--staged", cwd=repo.root)
    assert started.code == 0, started.err
    done = run_mmr("results", json.loads(started.out)["job_id"], "--format", "json",
                   cwd=repo.root)
    assert done.code == 0, done.err
    coverage = json.loads(done.out)["coverage"]
    assert {c["channel"]: c["shards"] for c in coverage["channels"]} == {
        "rev1": len(prompts(root, "rev1")), "rev2": len(prompts(root, "rev2"))}
    assert len(prompts(root, "rev1")) > 1 and coverage["partial"] is False


def test_a_generated_name_cannot_hide_the_files_below_it(tmp_path, run_mmr, monkeypatch) -> None:
    """Generated files are dropped by their exact path, never as a pattern: a branch that
    turns ``app.min.js`` into a folder does not hide the code it puts inside."""
    repo = GitRepo.create(tmp_path / "repo", {"app.py": "x = 1\n", "app.min.js": "var a=1;\n"})
    repo.write({"app.min.js": None})
    repo.write({"app.min.js/payload.py": "PAYLOAD = 'steal()'\n"})
    repo.git("add", "-A")
    result, prompt = review_alone(tmp_path, monkeypatch, run_mmr, repo)
    assert "PAYLOAD = 'steal()'" in prompt
    assert result["coverage"]["summarised_files"] == ["app.min.js"]


def test_the_shard_plan_prints_no_raw_control_character(large, run_mmr) -> None:
    """File names come from the reviewed branch: an escape sequence in one is shown, not
    sent to the terminal."""
    repo, _ = large
    repo.write({"src/\x1b[2Jz.py": body(99)})
    repo.git("add", "-A")
    text = run_mmr("review", "--dry-run", "--staged", cwd=repo.root).out
    assert "\\x1b[2Jz.py" in text
    assert "\x1b" not in text
