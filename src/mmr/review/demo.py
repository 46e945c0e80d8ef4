"""``mmr demo``: the real review pipeline on a bundled change, with recorded replies.

The demo copies the bundled folder (an example diff, three reviewers' replies recorded in
the formats of three reviewer CLIs, and the config that declares them as replay channels)
into a temporary directory, points ``MMR_HOME`` there and runs an ordinary synchronous
``mmr review --diff``: real subprocesses, parsing, reconciliation, the gate and the text
report. Nothing is read from the user's configuration or repository and nothing is written
outside the temporary directory, which is removed afterwards; no git repository and no
network are needed.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import yaml

from mmr.config.paths import MMR_HOME_ENV, USER_CONFIG_NAME
from mmr.resources import demo_dir
from mmr.review.pipeline import run_review
from mmr.review.request import ReviewRequest
from mmr.review.run import ReviewIO, ReviewOutcome
from mmr.vocabulary import EXIT_BLOCKED, EXIT_ERROR, EXIT_PASS

DIFF_FILE = "change.diff"
CONFIG_FILE = "config.yaml"
#: The verdict the bundled replies give: two reviewers or more agree on blocking findings.
RECORDED_EXIT = EXIT_BLOCKED

INTRO = (
    "mmr demo: a real review of a bundled example change (app/accounts.py) by three "
    "reviewers whose replies were recorded, served by replay channels. No model is called; "
    "the job lives in a temporary directory that is removed afterwards.\n"
)
NEXT_STEPS = (
    "\nThat was a demo: the findings above come from recorded replies.\n"
    "To review your own change:\n"
    "  1. install and log in to a reviewer CLI (claude, codex, opencode, …): `mmr doctor` "
    "shows which are installed and how to get the others;\n"
    "  2. in your repository, run `mmr review --base <default branch> --sync` "
    "(e.g. `--base main`).\n"
)


def demo_channels(folder: Path) -> tuple[str, ...]:
    """The demo's reviewers: the channels its bundled config declares."""
    document = yaml.safe_load((folder / CONFIG_FILE).read_text(encoding="utf-8"))
    return tuple(document["channels"])


def run_demo(io: ReviewIO) -> ReviewOutcome:
    """Run the demo review; ``io.cwd`` is ignored (the demo runs in its own directory).

    The outcome's document is the intro, the text report and the next steps. Its exit code
    is 0 when the pipeline reached the verdict the recorded replies give, so that `mmr demo`
    succeeds on a working installation whatever the example's verdict; any other outcome is
    1 (the installation does not run the pipeline as shipped).
    """
    with tempfile.TemporaryDirectory(prefix="mmr-demo-") as scratch:
        work = Path(scratch) / "change"
        shutil.copytree(demo_dir(), work)
        home = Path(scratch) / "home"
        home.mkdir()
        shutil.copyfile(work / CONFIG_FILE, home / USER_CONFIG_NAME)
        request = ReviewRequest(diff=DIFF_FILE, channels=demo_channels(work), format="text",
                                sync=True, no_cache=True)
        with _inside(work, home):
            outcome = run_review(request, ReviewIO(cwd=work, notice_sink=io.notice_sink,
                                                   progress=io.progress))
    document = INTRO + "\n" + outcome.document + "\n" + NEXT_STEPS.rstrip("\n")
    if outcome.exit_code == RECORDED_EXIT:
        return ReviewOutcome(document, EXIT_PASS)
    io.notice(f"mmr demo: the review exited {outcome.exit_code}, not {RECORDED_EXIT} as its "
              "recorded replies do; this installation does not run the pipeline as shipped")
    return ReviewOutcome(document, EXIT_ERROR)


@contextlib.contextmanager
def _inside(cwd: Path, home: Path) -> Iterator[None]:
    """Run with ``cwd`` as the working directory and ``home`` as ``MMR_HOME``, then restore
    both (relative replay files count from the working directory)."""
    old_cwd, old_home = Path.cwd(), os.environ.get(MMR_HOME_ENV)
    os.environ[MMR_HOME_ENV] = str(home)
    os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(old_cwd)
        if old_home is None:
            os.environ.pop(MMR_HOME_ENV, None)
        else:
            os.environ[MMR_HOME_ENV] = old_home
