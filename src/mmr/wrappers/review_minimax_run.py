"""``review-minimax-run``: a first-pass MiniMax review of a worktree's branch.

Same flags, defaults, exit codes and dry run as the original script, on mmr's engine:

====  ==================================================================================
exit  meaning
====  ==================================================================================
0     findings file written (it may say ``NO FINDINGS``); its path is printed on stdout
1     usage/config error, secrets root, credential-shaped diff, empty or oversize diff
2     MiniMax failed after its retry, timed out, or the sub-session dirtied the worktree
3     the findings were missing or failed the citation gate after the retry
====  ==================================================================================
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path

from mmr.cli.output import write_report
from mmr.log import stderr_line
from mmr.wrappers.common import (
    WrapperArgumentParser,
    add_budget_flags,
    add_model_flags,
    run_wrapper,
)
from mmr.wrappers.review_run import ReviewOptions, run

PROG = "review-minimax-run"


def build_parser() -> argparse.ArgumentParser:
    """The original script's command line, flag for flag."""
    parser = WrapperArgumentParser(
        PROG, "First-pass code review of a git branch in a MiniMax sub-session; writes a "
              "findings file for the operator to adjudicate.")
    parser.add_argument("--worktree", required=True, metavar="PATH",
                        help="checked-out worktree of the branch to review")
    parser.add_argument("--base", default="main", metavar="REF",
                        help="base ref; the scope is base...HEAD (default main)")
    parser.add_argument("--out", metavar="FILE",
                        help="findings file (default ${XDG_RUNTIME_DIR:-/tmp}/review-minimax/"
                             "<repo>/<branch-slug>-findings.md)")
    parser.add_argument("--profile", metavar="NAME",
                        help="extra checklist from templates.NAME.criteria (agent-runtimes)")
    parser.add_argument("--max-diff-lines", type=int, default=6000, metavar="N",
                        help="diff budget; larger diffs exit 1 (default 6000)")
    add_budget_flags(parser)
    parser.add_argument("--dryrun", "-n", action="store_true", dest="dry_run",
                        help="print config, inputs, prompt and command line; invoke nothing")
    add_model_flags(parser, default_effort="max",
                    m3_help="use MiniMax-M3[1m]; no effort is sent unless --effort is given")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    return run_wrapper(build_parser(), _review, argv)


def _review(args: argparse.Namespace) -> int:
    options = ReviewOptions(worktree=args.worktree, base=args.base, out=args.out,
                            profile=args.profile, max_diff_lines=args.max_diff_lines,
                            max_turns=args.max_turns, timeout=args.timeout, dry_run=args.dry_run,
                            m3=args.m3, effort=args.effort)
    return run(options, Path.cwd(), dict(os.environ), stderr_line, write_report)
