"""The options of the hot commands (``review``, ``results``, ``reconcile``), declared once.

Both routes read this table: :mod:`mmr.cli.hot_commands` builds the typer command (and
so ``--help``) from it, and :mod:`mmr.cli.fast_path` parses a plain command line with
it, without importing typer. Each row's ``dest`` is the keyword its body in
:mod:`mmr.cli.bodies` takes. Adding an option is one row here plus its use in the body.

Nothing here imports typer or the core: the fast route imports this module on every run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from mmr.cli.argv import ArgumentSpec, CommandSpec, OptionSpec
from mmr.vocabulary import FORMATS, SEVERITIES

Kind = Literal["str", "int", "float", "bool", "list"]


@dataclass(frozen=True)
class Param:
    """One parameter: the body's keyword, its spelling (None: positional), type and help."""

    dest: str
    flag: str | None
    help: str
    kind: Kind = "str"
    choices: tuple[str, ...] | None = None
    negation: str | None = None
    required: bool = False
    metavar: str | None = None

    @property
    def default(self) -> Any:
        return False if self.kind == "bool" else None

    def option_spec(self) -> OptionSpec:
        flag = self.flag or self.dest
        return OptionSpec(
            name=flag.lstrip("-"), spellings=(flag,), takes_value=self.kind != "bool",
            greedy=self.kind == "list", choices=self.choices, required=self.required,
            negations=(self.negation,) if self.negation else (),
        )


@dataclass(frozen=True)
class HotCommand:
    """A command both routes serve: its body (in :mod:`mmr.cli.bodies`), help and parameters."""

    body: str
    summary: str
    params: tuple[Param, ...]

    @property
    def spec(self) -> CommandSpec:
        return CommandSpec(
            options=tuple(p.option_spec() for p in self.params if p.flag is not None),
            arguments=tuple(ArgumentSpec(name=p.dest, required=p.required)
                            for p in self.params if p.flag is None),
        )


def _switch(dest: str, flag: str, help_text: str, negation: str | None = None) -> Param:
    return Param(dest, flag, help_text, kind="bool", negation=negation)


_JOB_ID = Param("job_id", None, "The job id, e.g. mmr-3f2a9c1b7d04.", required=True,
                metavar="JOB_ID")
_JOB_FORMAT = Param("fmt", "--format", "Output format (default: the job's format, else json).",
                    choices=FORMATS)

_WAIT = (
    Param("wait_timeout", "--wait-timeout",
          "Seconds to wait for a running job (default: its longest channel timeout, twice).",
          kind="float"),
    _switch("no_wait", "--no-wait",
            "Answer at once: exit 6 while the job's channels are still running."),
)

COMMANDS: Mapping[str, HotCommand] = {
    "review": HotCommand(
        "review_command",
        "Review a diff with several AI reviewers and gate on the reconciled findings.", (
            Param("diff", "--diff", "Review this diff file; - reads standard input."),
            Param("pr", "--pr", "Review pull request N (gh pr diff).", kind="int"),
            _switch("staged", "--staged", "Review staged changes (git diff --cached)."),
            Param("base", "--base", "Review BASE...HEAD (since the merge base)."),
            Param("head", "--head", "The head ref for --base (default HEAD)."),
            Param("focus", "--focus", "Extra focus areas for the reviewers."),
            Param("fix_threshold", "--fix-threshold",
                  "Findings at or above this severity block (default P2).", choices=SEVERITIES),
            Param("channels", "--channels",
                  "Channels to dispatch (space- or comma-separated).", kind="list"),
            Param("timeout", "--timeout",
                  "Seconds each channel may run (wins over channel timeouts).", kind="float"),
            Param("template", "--template", "Add the criteria of config template NAME."),
            Param("max_diff_lines", "--max-diff-lines", "Refuse a diff longer than N lines.",
                  kind="int"),
            Param("fmt", "--format",
                  "Output format of the verdict (default: defaults.format, json).",
                  choices=FORMATS),
            _switch("sync", "--sync", "Wait for the verdict and exit with its code.",
                    "--no-sync"),
            _switch("dry_run", "--dry-run",
                    "Print each channel's prompt and auth check; dispatch nothing."),
            _switch("compensate_missing", "--compensate-missing",
                    "Also compensate channels that are not installed."),
            _switch("quiet", "--quiet", "No per-channel progress on stderr."),
            _switch("no_cache", "--no-cache",
                    "Run every channel again, even when a cached reply would be reused."),
            Param("session", "--session", "Link the review to session ID."),
            Param("round_number", "--round", "The round number within the session (default 1).",
                  kind="int"),
            Param("max_rounds", "--max-rounds",
                  "Round cap (default loop_control.max_rounds_default).", kind="int"),
            _switch("accept_new_acks", "--accept-new-acks",
                    "Ratify acks the diff adds, and apply them."),
            _switch("trust_project_acks", "--trust-project-acks",
                    "Honour the working-tree .mmr/acks/."),
            _switch("trust_project_config", "--trust-project-config",
                    "Honour the working-tree .mmr.yaml."),
            Param("config_base_ref", "--config-base-ref",
                  "Read project config and acks from this git ref."),
        )),
    "results": HotCommand("results_command", "Get the reconciled results of a review job.", (
        _JOB_ID, _JOB_FORMAT,
        _switch("raw", "--raw", "Include each channel's raw output."),
        *_WAIT,
    )),
    "reconcile": HotCommand(
        "reconcile_command", "Inject external findings into a job and re-reconcile.", (
            _JOB_ID,
            Param("channel", "--channel",
                  "Name for the injected channel (letters, digits, . _ -; lower-cased).",
                  required=True),
            Param("source", "--input",
                  "Findings: a file, - for stdin, or inline JSON (object with findings, or "
                  "array).", required=True),
            _JOB_FORMAT,
            *_WAIT,
        )),
}
