"""``explore-minimax-run``: ``mmr explore`` on the ``minimax-explore`` channel.

Same flags, defaults and exit codes as the original script: 0 answer written to ``--out``;
1 usage/config error (bad flag, missing root, secrets root, ``ask-minimax-run`` missing);
2 MiniMax failed after its retry; 3 it ran, but the answer is empty or uncited (the answer
is still written to ``--out``, as the original wrote it before its citation gate).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from mmr.explore.run import ExploreRequest, run_explore, write_out
from mmr.log import stderr_line
from mmr.wrappers.common import (
    WrapperArgumentParser,
    add_budget_flags,
    add_model_flags,
    run_wrapper,
)

PROG = "explore-minimax-run"
CHANNEL = "minimax-explore"


def build_parser() -> argparse.ArgumentParser:
    """The original script's command line, flag for flag."""
    parser = WrapperArgumentParser(
        PROG, "Read-only codebase exploration in a MiniMax sub-session; only a cited "
              "answer comes back.")
    parser.add_argument("--root", action="append", required=True, metavar="PATH",
                        help="search root (repeatable); passed as --add-dir")
    parser.add_argument("--prompt-file", required=True, metavar="FILE",
                        help="file holding the question (the preamble is prepended)")
    parser.add_argument("--out", required=True, metavar="FILE",
                        help="where the answer text is written")
    parser.add_argument("--breadth", choices=("medium", "very-thorough"), default="medium",
                        help="medium (stop when answered) or very-thorough (full sweep)")
    add_budget_flags(parser)
    add_model_flags(parser, default_effort="medium",
                    m3_help="use MiniMax-M3 instead of MiniMax-M3.1-Flash; no effort is "
                            "sent unless --effort is given")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    return run_wrapper(build_parser(), _explore, argv)


def _explore(args: argparse.Namespace) -> int:
    request = ExploreRequest(roots=tuple(args.root), prompt_file=args.prompt_file, out=args.out,
                             breadth=args.breadth, channels=(CHANNEL,), max_turns=args.max_turns,
                             timeout=args.timeout, m3=args.m3, effort=args.effort, format="text")
    cwd = Path.cwd()
    outcome = run_explore(request, cwd, stderr_line)
    if outcome.text is not None:
        written = write_out(args.out, outcome.text, cwd)
        if outcome.exit_code == 0:
            stderr_line(f"[mmr] answer written to {written}")
    return outcome.exit_code
