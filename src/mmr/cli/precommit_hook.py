"""The pre-commit hook's entry (``.pre-commit-hooks.yaml``): ``python -m mmr.cli.precommit_hook``.

At the ``pre-push`` stage (the hook's default: a review takes minutes) the changes are
already committed, so ``mmr review --staged`` would see an empty diff and fail every push.
pre-commit names the pushed range in ``PRE_COMMIT_FROM_REF``/``PRE_COMMIT_TO_REF``; the hook
reviews ``FROM...TO`` then, and the staged changes at any other stage. The hook's ``args``
come last, so they can override the defaults (``--format json``, ``--channels …``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence

from mmr.cli.main import main as mmr_main

#: What the hook shows by default: the text report reads well in a terminal.
DEFAULT_OPTIONS = ("--sync", "--format", "text")


def review_argv(env: Mapping[str, str], extra: Sequence[str] = ()) -> list[str]:
    from_ref = env.get("PRE_COMMIT_FROM_REF") or env.get("PRE_COMMIT_SOURCE", "")
    to_ref = env.get("PRE_COMMIT_TO_REF") or env.get("PRE_COMMIT_ORIGIN", "")
    diff = ["--base", from_ref, "--head", to_ref] if from_ref and to_ref else ["--staged"]
    return ["review", *diff, *DEFAULT_OPTIONS, *extra]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the review for this hook invocation; the exit code is the verdict's."""
    extra = list(sys.argv[1:] if argv is None else argv)
    return mmr_main(review_argv(os.environ, extra))


if __name__ == "__main__":
    raise SystemExit(main())
