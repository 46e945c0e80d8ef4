"""``review-minimax-run`` as one readable function, in the order the original script runs.

Preflight and inputs (exit 1) → config from the base ref, the ``minimax`` (``--m3``:
``minimax-m3``) channel and ``ask-minimax-run`` on PATH → materialise and gate the diff in
a scratch directory → dry run, or one synchronous dispatch in a scratch job (retry policy,
clean-tree assertion, citation gate and telemetry are the engine's) → the findings file.
The scratch directory is removed on exit; only the findings file survives.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from mmr.config.loaded import Channel, LoadedConfig
from mmr.config.loader import load_config
from mmr.config.schema import MmrConfig
from mmr.config.selection import check_dispatchable
from mmr.config.wrapper import resolve_prompt_wrapper
from mmr.dispatch.auth import install_token, is_installed
from mmr.dispatch.placeholders import split_command
from mmr.dispatch.plan import ChannelEvent, ChannelPlan
from mmr.errors import ConfigError
from mmr.explore.inputs import InputError, check_effort, check_positive
from mmr.explore.scratch import run_in_scratch, with_vars
from mmr.prompt.assemble import apply_wrapper
from mmr.trust.trusted_files import read_project_config_at_ref
from mmr.wrappers import fake_session
from mmr.wrappers.review_inputs import (
    SECRET_PATH_EXCLUDES,
    check_inputs,
    default_out,
    materialise,
    preflight,
)
from mmr.wrappers.review_report import (
    PROG,
    dry_run_text,
    finish,
    review_request,
)

Line = Callable[[str], None]


@dataclass(frozen=True)
class ReviewOptions:
    """The command line, with the original script's defaults."""

    worktree: str
    base: str = "main"
    out: str | None = None
    profile: str | None = None
    max_diff_lines: int = 6000
    max_turns: int = 40
    timeout: float = 540
    dry_run: bool = False
    m3: bool = False
    effort: str | None = None


def run(options: ReviewOptions, cwd: Path, env: Mapping[str, str], notice: Line,
        stdout: Line) -> int:
    """Review the worktree's branch; return the exit code (0, 2 or 3; errors raise, exit 1)."""
    check_effort(options.effort)
    check_positive(options.max_diff_lines, "--max-diff-lines")
    check_positive(options.max_turns, "--max-turns")
    check_positive(options.timeout, "--timeout")
    tree = preflight(options.worktree, options.base, cwd)
    # The project .mmr.yaml of the base ref: the branch under review (often agent-written)
    # must not be able to change the reviewer that judges it.
    loaded = load_config(tree.root, project_source=read_project_config_at_ref(tree.root, tree.base),
                         on_warning=notice)
    name = "minimax-m3" if options.m3 else "minimax"
    check_dispatchable(loaded.config, name, role="review")
    channel = prepared_channel(loaded, name, options)
    criteria = profile_criteria(loaded.config, options.profile)
    token = install_token(channel.command)
    if not is_installed(token):
        raise InputError(f"{token or 'ask-minimax-run'} not found on PATH; install it and set "
                         "up its MiniMax profile (~/.claude-oreillyit-minimax)")
    fake = fake_inputs(env, cwd)
    out = cwd / Path(options.out).expanduser() if options.out else default_out(tree, env)
    if out.is_dir():
        raise InputError(f"--out {out}: is a directory; name the findings file")
    excludes = [*SECRET_PATH_EXCLUDES, *(channel.diff_exclude or [])]
    with tempfile.TemporaryDirectory(prefix="review-minimax-") as scratch_name:
        scratch = Path(scratch_name)
        inputs = materialise(tree, scratch, excludes)
        check_inputs(inputs, options.max_diff_lines)
        wrapper = resolve_prompt_wrapper(channel.prompt_wrapper, name)
        prompt = apply_wrapper(wrapper, review_request(tree, inputs, criteria))
        plan = ChannelPlan(name=name, channel=channel, prompt=prompt,
                           timeout_s=options.timeout, output_parser=channel.output_parser)
        if options.dry_run:
            stdout(dry_run_text(tree, inputs, plan, out=out, profile=options.profile,
                                max_diff_lines=options.max_diff_lines, fake=fake))
            return 0
        if fake is not None:
            plan = with_fake_session(plan, scratch / "fake-bin", fake)
        out.unlink(missing_ok=True)  # no stale findings file may outlive this run
        result = run_in_scratch([plan], scratch=scratch, repo_root=tree.root,
                                on_event=progress(notice, plan))
    return finish(plan, result, out, notice, stdout)


def prepared_channel(loaded: LoadedConfig, name: str, options: ReviewOptions) -> Channel:
    """The channel with this run's vars, and the clean-tree assertion forced on."""
    channel = loaded.channels[name]  # check_dispatchable has already rejected a missing one
    overrides: dict[str, object] = {"max_turns": options.max_turns}
    if options.effort is not None:
        overrides["effort"] = options.effort
    return with_vars(channel, overrides).model_copy(update={"assert_clean_tree": True})


def profile_criteria(config: MmrConfig, profile: str | None) -> tuple[str, ...]:
    """``--profile NAME``: the checklist ``templates.NAME.criteria`` from the config."""
    if profile is None:
        return ()
    entry = (config.templates or {}).get(profile)
    if entry is None or not entry.criteria:
        raise ConfigError(
            f"--profile {profile}: no checklist templates.{profile}.criteria in the config; "
            "add one to ~/.mmr/config.yaml or the base branch's .mmr.yaml "
            "(see .mmr.yaml.example)")
    return tuple(entry.criteria)


def fake_inputs(env: Mapping[str, str], cwd: Path) -> tuple[Path, Path | None] | None:
    """The canned envelope (and findings) files, checked to exist; None when unset."""
    envelope = env.get(fake_session.FAKE_JSON_ENV)
    if not envelope:
        return None
    findings = env.get(fake_session.FAKE_FINDINGS_ENV) or None
    paths = [(fake_session.FAKE_JSON_ENV, cwd / envelope)]
    if findings is not None:
        paths.append((fake_session.FAKE_FINDINGS_ENV, cwd / findings))
    for var, path in paths:
        if not path.is_file():
            raise InputError(f"{var}={path}: no such file; point it at a readable file")
    return paths[0][1], (paths[1][1] if len(paths) > 1 else None)


def with_fake_session(plan: ChannelPlan, bin_dir: Path,
                      fake: tuple[Path, Path | None]) -> ChannelPlan:
    """The plan with ``ask-minimax-run`` replaced by the fake session (same flags).

    The fake runs in the channel's neutral directory, so it gets absolute paths.
    """
    shim = fake_session.write_shim(bin_dir)
    if any(char.isspace() for char in str(shim)):
        raise InputError(f"the scratch directory {bin_dir} contains whitespace; set TMPDIR "
                         "to a path without spaces to use the RM-11 fakes")
    command = " ".join([str(shim), *split_command(plan.channel.command or "")[1:]])
    env = {**plan.channel.env, fake_session.FAKE_JSON_ENV: str(fake[0].resolve())}
    if fake[1] is not None:
        env[fake_session.FAKE_FINDINGS_ENV] = str(fake[1].resolve())
    channel = plan.channel.model_copy(update={"command": command, "env": env})
    return ChannelPlan(plan.name, channel, plan.prompt, plan.timeout_s, plan.output_parser)


def progress(notice: Line, plan: ChannelPlan) -> Callable[[ChannelEvent], None]:
    """One stderr line per attempt started: the run is long, and a retry is worth seeing."""
    model = (plan.channel.vars or {}).get("model")

    def on_event(event: ChannelEvent) -> None:
        if event.status != "running":
            return
        what = "retrying" if event.attempt > 1 else f"reviewing with {model or event.channel}"
        notice(f"{PROG}: {what} (attempt {event.attempt}, timeout {plan.timeout_s:g}s)")

    return on_event
