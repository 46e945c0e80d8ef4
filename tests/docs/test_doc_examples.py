"""Every command example in README.md and docs/ runs, through the installed ``mmr``, in a
sandbox repository with fake reviewers, and exits as the docs say.

``EXAMPLES`` holds one entry per documented line (``"<file>: <command>"``, the command
without its trailing comment): the exit code the docs give for it, the sandbox state it
runs in, and what its output must say. A new example in the docs that is not in the table
fails ``test_every_example_is_registered``, so the docs cannot grow examples nobody runs.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.docs.doc_examples import ROOT, Example, examples
from tests.docs.sandbox import EXPLORE_ANSWER, WORKING_ONLY, Run, Sandbox, build
from tests.integration.http.conftest import FakeServer, _serve

Check = Callable[[Sandbox, Run], None]


@dataclass(frozen=True)
class Case:
    """One documented situation of an example."""

    code: int  #: the exit code the docs give
    state: str = "feature"  #: see tests/docs/sandbox.py STATES
    run: str | None = None  #: run this instead of the line (the line's mmr part, a variant)
    says: tuple[str, ...] = ()  #: in stdout or stderr
    check: Check | None = None


@dataclass(frozen=True)
class Skip:
    reason: str


# --- checks ------------------------------------------------------------------------------

def _jobs(sandbox: Sandbox) -> list[str]:
    return sorted(p.name for p in (sandbox.mmr_home / "jobs").glob("mmr-*"))


def no_job_created(sandbox: Sandbox, run: Run) -> None:
    assert _jobs(sandbox) == [], "stopped before creating a job"


def work_tree_untouched(sandbox: Sandbox, run: Run) -> None:
    """``mmr demo`` runs in a directory of its own: run again, it leaves the repository
    (tracked, untracked and ignored files) and mmr's home as they were."""
    def snapshot() -> tuple[str, list[str]]:
        status = sandbox.run("git status --porcelain --ignored --untracked-files=all")
        return status.out, sorted(str(p) for p in sandbox.mmr_home.rglob("*"))

    before = snapshot()
    again = sandbox.run("mmr demo")
    assert again.code == 0, again.describe()
    assert snapshot() == before, "the demo wrote into the work tree or mmr's home"


def dispatch_summary(sandbox: Sandbox, run: Run) -> None:
    """README: fire-and-forget prints a JSON summary with the job id, and says so."""
    summary = json.loads(run.out)
    assert summary["job_id"] in _jobs(sandbox)
    assert set(summary["channels"]) == {"alpha", "beta"}
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    [line] = [text for text in readme.splitlines() if text.startswith("mmr review --base main ")
              and "--sync" not in text]
    assert "JSON" in line and "job id" in line, f"README must say what it prints: {line!r}"
    status = sandbox.run(f"mmr status {summary['job_id']}")
    assert status.code == 0, status.describe()  # the worker has finished (waited on its lock)


def nothing_dispatched(sandbox: Sandbox, run: Run) -> None:
    assert len(sandbox.alpha.calls()) == sandbox.alpha_calls_at_start, "a channel ran"


def reviewed_the_pull_request(sandbox: Sandbox, run: Run) -> None:
    """The prompt carried the pull request's diff (from ``gh pr diff``), not the work tree."""
    prompt = sandbox.alpha.last_call()["stdin"]
    assert "for i in range(n + 1)" in prompt and WORKING_ONLY not in prompt


def project_config_written(sandbox: Sandbox, run: Run) -> None:
    assert (sandbox.repo / ".mmr.yaml").is_file()


def json_file(name: str, key: str) -> Check:
    def check(sandbox: Sandbox, run: Run) -> None:
        document = json.loads((sandbox.repo / name).read_text(encoding="utf-8"))
        assert key in document, f"{name} has no {key!r}"
    return check


def ack_file(sandbox: Sandbox, run: Run) -> None:
    key = sandbox.values["<finding_key>"]
    assert (sandbox.repo / ".mmr" / "acks" / f"{key}.json").is_file(), run.describe()


def completes_review(sandbox: Sandbox, run: Run) -> None:
    done = sandbox.run("source ~/.mmr-complete.bash && COMP_WORDS=(mmr rev) && COMP_CWORD=1 "
                       "&& _mmr_completion mmr && echo \"${COMPREPLY[@]}\"")
    assert done.code == 0 and "review" in done.out.split(), done.describe()


def probed(channel: str) -> Check:
    """``mmr config test`` found the recipe's channel installed and its probe passing."""
    def check(sandbox: Sandbox, run: Run) -> None:
        assert json.loads(run.out)[channel] == {"installed": True, "auth": "ok"}, run.describe()
        if channel == "ollama":
            assert [r.path for r in sandbox.server.requests][-1:] == ["/v1/models"]
    return check


def replies_reused(sandbox: Sandbox, run: Run) -> None:
    """docs/cache.md: the same review again runs no channel; --no-cache runs every one."""
    again = sandbox.mmr_json("mmr review --base main --sync")
    assert {ch["cached"] for ch in again["per_channel"].values() if "cached" in ch} == {True}
    fresh = sandbox.mmr_json("mmr review --base main --sync --no-cache")
    assert not [ch for ch in fresh["per_channel"].values() if ch.get("cached")]


def sarif_log(sandbox: Sandbox, run: Run) -> None:
    log = json.loads((sandbox.repo / "mmr.sarif").read_text(encoding="utf-8"))
    assert log["version"] == "2.1.0" and log["runs"][0]["tool"]["driver"]["name"] == "mmr"


# --- the table ---------------------------------------------------------------------------

NO_DIFF = "No diff content found"
NO_REVIEWERS = ("No channels passed auth check:",
                "claude: not_installed — claude not found on PATH")
DEMO = ("mmr demo: a real review", "MMR BLOCKED", "(consensus)", "mmr doctor",
        "mmr review --base <default branch> --sync")
OUTSIDE = "The loop runs one step past n"

EXAMPLES: dict[str, Case | tuple[Case, ...] | Skip] = {
    "README.md: python3 -m venv .venv && . .venv/bin/activate && pip install . && mmr demo":
        Case(0, "no-reviewers", run="mmr demo", says=DEMO, check=work_tree_untouched),
    "README.md: mmr demo": Case(0, "no-reviewers", says=DEMO, check=work_tree_untouched),
    "README.md: mmr --help": Case(0, says=("mmr <command> --help",)),
    "README.md: mmr review --base main --sync": (
        Case(0, says=('"verdict": "pass"',)),
        Case(1, "main-clean", says=(NO_DIFF,)),
        Case(1, "no-reviewers", says=NO_REVIEWERS, check=no_job_created),
    ),
    "README.md: mmr review --staged --sync --format text": Case(0, says=("MMR PASSED",)),
    "README.md: mmr review --pr 123 --sync --format markdown":
        Case(0, says=("## ",), check=reviewed_the_pull_request),
    "README.md: git diff | mmr review --diff - --sync": Case(0, says=('"verdict": "pass"',)),
    "README.md: mmr review --dry-run": Case(0, says=("DRY RUN", "Assembled prompt for alpha"),
                                            check=nothing_dispatched),
    "README.md: mmr review --base main": Case(0, check=dispatch_summary),
    "README.md: mmr status <job-id>": (
        Case(0, says=('"status": "completed"',)),
        Case(2, "beta-fails", says=('"status": "failed"',)),
        Case(5, run="mmr status mmr-0123456789ab"),
    ),
    "README.md: mmr results <job-id> --format text": (
        Case(0, says=("MMR PASSED",)),
        Case(2, run="mmr reconcile <job-id> --channel mine --input findings.json >/dev/null; "
                    "mmr results <job-id> --format text", says=(OUTSIDE,)),
    ),
    "README.md: mmr reconcile <job-id> --channel mine --input findings.json": (
        Case(2, says=('"verdict": "blocked"', OUTSIDE)),
        Case(5, run="mmr reconcile <job-id> --channel mine --input missing.json"),
    ),
    "README.md: mmr doctor": Case(0, says=("alpha", "ok")),
    "README.md: mmr config init && mmr config channels --format text":
        Case(0, says=("Created ", "alpha"), check=project_config_written),
    "README.md: mmr config init --global":
        Case(0, state="no-reviewers", says=("Created ", "No reviewer CLI is installed here")),
    "README.md: mmr config schema > mmr.schema.json":
        Case(0, check=json_file("mmr.schema.json", "$schema")),
    'README.md: mmr ack add <finding_key> --reason "accepted: …"': Case(0, check=ack_file),
    'README.md: mmr explore --root . --question "where is the session cookie set?"':
        Case(0, says=(EXPLORE_ANSWER,)),
    "README.md: mmr critique design.md": Case(0, says=("CRITIQUE · design.md",)),
    "README.md: mmr comment --pr 123 --job <job-id>": Case(0, says=('"action": "created"',)),
    "README.md: mmr comment --pr 123 --job <job-id> --inline":
        Case(0, says=('"action": "created"', '"already_posted": 0')),
    "docs/completion.md: _MMR_COMPLETE=source_bash mmr > ~/.mmr-complete.bash":
        Case(0, check=completes_review),
    "docs/critique.md: mmr critique docs/design.md": Case(0, says=("CRITIQUE ·",)),
    "docs/critique.md: cat plan.md | mmr critique -": Case(0, says=("CRITIQUE ·",)),
    'docs/critique.md: mmr critique --text "Problem: … Proposal: …"':
        Case(0, says=("CRITIQUE · inline",)),
    "docs/critique.md: mmr critique docs/design.md --context repo": Case(0, says=("CRITIQUE ·",)),
    "docs/critique.md: mmr critique docs/design.md --lenses skeptic,pragmatist --session sched":
        Case(0, says=("CRITIQUE ·",)),
    "docs/github-action.md: mmr comment --pr <number> --results <the review's JSON document>":
        Case(0, says=('"action": "created"',)),
    "docs/github-action.md: mmr comment --pr <number> --results <the review's JSON document> "
    "--inline": Case(0, says=('"action": "created"', '"already_posted": 0')),
    "docs/recipes/linter.md: mmr config test": Case(0, "lint-recipe", check=probed("lint")),
    "docs/recipes/linter.md: mmr review --channels lint --sync --format text": (
        Case(3, "lint-recipe", says=("F401",)),
        Case(1, "lint-uncommitted", says=('Channel "lint" not found in config',)),
        Case(3, "lint-uncommitted", says=("F401",), run="mmr review --trust-project-config "
                                                         "--channels lint --sync --format text"),
    ),
    "docs/recipes/linter.md: mmr review --channels lint --config-base-ref HEAD --diff "
    "demo.patch --sync --format text": (
        Case(3, "lint-recipe-clean", says=("lint: completed",)),
        Case(1, "lint-recipe-clean", says=(NO_DIFF,),
             run="mmr review --channels lint --sync --format text"),
    ),
    "docs/recipes/ollama.md: mmr config test": Case(0, "ollama-recipe", check=probed("ollama")),
    "docs/recipes/ollama.md: mmr review --channels ollama --config-base-ref HEAD --diff "
    "demo.patch --sync --format text": (
        Case(3, "ollama-recipe-clean", says=("NEEDS DECISION", "ollama: completed")),
        Case(3, "ollama-recipe", says=("NEEDS DECISION", "ollama: completed"),
             run="mmr review --channels ollama --sync --format text"),
        Case(1, "ollama-recipe-clean", says=(
            'Channel "ollama" not found in config',
            "[mmr] notice: .mmr.yaml not read: a --diff input may come from anywhere"),
             run="mmr review --channels ollama --diff demo.patch --sync --format text"),
    ),
    "docs/sarif.md: mmr review --base main --sync --format sarif > mmr.sarif":
        Case(0, check=sarif_log),
    "docs/cache.md: mmr review --base main --sync": Case(0, check=replies_reused),
    "docs/cache.md: mmr review --base main --sync --no-cache": Case(0),
}

ALL = examples()


def _cases(entry: Case | tuple[Case, ...] | Skip) -> tuple[Case, ...]:
    return entry if isinstance(entry, tuple) else (entry,) if isinstance(entry, Case) else ()


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    root = tmp_path_factory.mktemp("doc-examples")
    for server in _serve(FakeServer()):
        yield build(root, server)


def test_every_example_is_registered() -> None:
    documented = {example.key: example for example in ALL}
    missing = [f"{e.file}:{e.line}: {e.key!r}" for e in documented.values()
               if e.key not in EXAMPLES]
    assert not missing, ("documented command examples that no test runs; add each to EXAMPLES "
                         "in tests/docs/test_doc_examples.py with the exit code the docs "
                         "give:\n  " + "\n  ".join(missing))
    stale = sorted(set(EXAMPLES) - set(documented))
    assert not stale, f"EXAMPLES entries no document shows any more; remove them: {stale}"
    skipped = {key: entry.reason for key, entry in EXAMPLES.items() if isinstance(entry, Skip)}
    print("skipped examples:", json.dumps(skipped, indent=2) if skipped else "none")


@pytest.mark.parametrize("example", ALL, ids=[f"{e.file}:{e.line}" for e in ALL])
def test_example_exits_as_documented(example: Example, sandbox: Sandbox) -> None:
    entry = EXAMPLES.get(example.key)
    if entry is None:
        pytest.fail(f"{example.file}:{example.line}: not in EXAMPLES (see the test above)")
    if isinstance(entry, Skip):
        pytest.skip(f"{example.key}: {entry.reason}")
    for case in _cases(entry):
        sandbox.prepare(case.state)
        run = sandbox.run(sandbox.substitute(case.run or example.command))
        where = f"{example.file}:{example.line} ({case.state})"
        assert run.code == case.code, f"{where}: documented exit {case.code}\n{run.describe()}"
        for text in case.says:
            assert text in run.out + run.err, f"{where}: output lacks {text!r}\n{run.describe()}"
        if case.check is not None:
            case.check(sandbox, run)


def test_placeholders_fill_from_real_jobs(sandbox: Sandbox) -> None:
    sandbox.prepare("feature")
    command = sandbox.substitute("mmr status <job-id>")
    assert command.startswith("mmr status mmr-") and Path(sandbox.mmr_home / "jobs"
                                                         / command.split()[-1]).is_dir()
