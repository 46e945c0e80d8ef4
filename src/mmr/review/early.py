"""The early start of ``mmr review --sync``: the channels' children begin before the imports.

Most of a review's own share is importing the pipeline (pydantic, the models, yaml,
anyio) before anything runs. A review whose setup was seen before need not wait for that:
right after the command line is read (:mod:`mmr.cli.fast_path`), :func:`speculate`
resolves trust and computes :func:`early_key` over everything that decides what would be
dispatched — mmr's version, the command line, cwd, the whole environment, the user
config file's bytes, the project config text trust selects, the trust mode. On a recipe
for that key (:mod:`mmr.cache.recipe`, written by an earlier run's dispatch) it resolves the
diff and builds each channel's prompt with the pipeline's own functions, and starts the
children (:mod:`mmr.process.speculative`). The pipeline then runs exactly as without it;
its chokepoint adopts a child only when the request is identical, and every child nobody
adopted is killed once the dispatch has spawned, or when the review stops early.

No early start for ``--pr``, ``--diff -``, ``--dry-run``, a review without ``--sync``,
``--session``/``--round``, a diff or branch proposing ``.mmr.yaml``/``.mmr/`` changes, any
error on the way (the lane gives up silently), or ``MMR_EARLY_START=0``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mmr.cache.recipe import Recipe
    from mmr.git import ProbeAnswers
    from mmr.trust.modes import TrustContext

KEY_VERSION = 1
SWITCH = "MMR_EARLY_START"


class _State:
    """This run's early start: the key it computed (the pipeline records its dispatch
    under it; None: nothing is recorded) and git's answers to its probes."""

    key: str | None = None
    probes: ProbeAnswers | None = None


_state = _State()


def forget() -> None:
    """End this run's early start: its key and probe answers belong to no later run."""
    _state.key = _state.probes = None


def pending_key() -> str | None:
    return _state.key


def probe_answers() -> ProbeAnswers | None:
    """The rev-parse answers the early start got, for the pipeline to reuse (the same
    questions of the same repository, a moment later: ``git.probe_memo``)."""
    return _state.probes


def eligible(options: Mapping[str, Any], env: Mapping[str, str]) -> bool:
    """Whether a review with these body keywords may start early at all."""
    return (env.get(SWITCH, "1") != "0" and bool(options.get("sync"))
            and not options.get("dry_run") and options.get("pr") is None
            and options.get("diff") != "-" and options.get("session") is None
            and options.get("round_number") is None)


def early_key(argv: Sequence[str], cwd: Path, trust: TrustContext) -> str:
    """The hex key of everything that decides what this review would dispatch."""
    from mmr import __version__
    from mmr.config.paths import user_config_path
    from mmr.fs import sha256_hex

    try:
        user_config: str | None = sha256_hex(user_config_path().read_bytes())
    except OSError:
        user_config = None
    project = trust.project_config_text
    material = {
        "v": KEY_VERSION, "mmr": __version__, "argv": list(argv), "cwd": str(cwd),
        "env": sorted(os.environ.items()), "user_config": user_config,
        "project_config": project,
        "trust_mode": trust.mode, "trusted_ref": trust.trusted_ref,
        "project_root": str(trust.project_root),
    }
    return sha256_hex(json.dumps(material, ensure_ascii=True, sort_keys=True).encode("ascii"))


def speculate(argv: Sequence[str], options: Mapping[str, Any], cwd: Path) -> int:
    """Start the children of this review's recipe, if it has one; how many were started.

    Never raises: any problem means no early start, and the pipeline runs as always.
    """
    forget()
    try:
        if not eligible(options, os.environ):
            return 0
        return _speculate(argv, options, cwd)
    except Exception:  # the lane only ever saves time; the pipeline reports every problem
        return 0


def _speculate(argv: Sequence[str], options: Mapping[str, Any], cwd: Path) -> int:
    from mmr import git
    from mmr.cache.recipe_store import load_recipe
    from mmr.config.paths import mmr_home
    from mmr.diff.inputs import DiffRequest, check_reviewable, resolve_diff
    from mmr.trust.modes import TrustFlags, resolve_trust

    if options.get("diff") is not None and not _regular_file(cwd / options["diff"]):
        return 0  # a stream (/dev/stdin, a FIFO, <(...)) can be read once: by the pipeline
    request = DiffRequest(diff=options.get("diff"), pr=None, staged=bool(options.get("staged")),
                          base=options.get("base"), head=options.get("head"))
    flags = TrustFlags(config_base_ref=options.get("config_base_ref"),
                       trust_project_config=bool(options.get("trust_project_config")),
                       trust_project_acks=bool(options.get("trust_project_acks")),
                       accept_new_acks=bool(options.get("accept_new_acks")))
    _state.probes = {}
    with git.probe_memo(_state.probes):
        trust = resolve_trust(cwd, request, flags)
        if _proposes(trust.branch_proposed):
            return 0
        key = early_key(argv, cwd, trust)
        _state.key = key
        recipe = load_recipe(mmr_home(), key)
        if recipe is None:
            return 0
        diff = resolve_diff(request, cwd, diff_exclude=recipe.diff_exclude)
    if _proposes(diff.proposed):
        return 0
    check_reviewable(diff, recipe.max_diff_lines)
    return _start(recipe, diff.text, diff.line_count)


def _cached_replies(recipe: Recipe) -> Callable[[dict[str, Any] | None, str], bool]:
    """Whether the review cache already holds a channel's reply to a prompt (the dispatch
    will replay it and start nothing, so neither does the early start)."""
    settings = recipe.cache
    if settings is None:
        return lambda material, prompt: False
    from mmr.cache.key import material_key
    from mmr.cache.store import ReviewCache

    cache = ReviewCache(Path(settings["root"]), max_age_s=float(settings["max_age_s"]),
                        max_bytes=int(settings["max_bytes"]))

    def cached(material: dict[str, Any] | None, prompt: str) -> bool:
        return material is not None and cache.get(material_key(material, prompt)) is not None

    return cached


def _proposes(proposed: Any) -> bool:
    return bool(proposed.config_file_changed or proposed.ack_files_changed)


def _start(recipe: Recipe, text: str, line_count: int) -> int:
    from mmr.process import speculative
    from mmr.prompt.channel_prompt import (
        ChannelPromptSpec,
        PreparedDiff,
        PromptParts,
        channel_prompt,
    )

    prepared = PreparedDiff.prepare(text, line_count)
    parts = PromptParts(review_criteria=recipe.review_criteria,
                        template_criteria=recipe.template_criteria, focus=recipe.focus)
    identities = []
    cached = _cached_replies(recipe)
    for channel in recipe.channels:
        spec = ChannelPromptSpec(max_diff_lines=channel.max_diff_lines,
                                 on_credentials=channel.on_credentials,
                                 diff_exclude=channel.diff_exclude, wrapper=channel.wrapper)
        built = channel_prompt(channel.name, spec, prepared, parts)
        if built.prompt is None or cached(channel.cache, built.prompt):
            continue
        env = {k: v for k, v in os.environ.items() if k not in channel.env_unset}
        env.update(channel.env_set)
        identity = speculative.Identity.build(
            argv=channel.argv, env=env, cwd=channel.cwd,
            stderr="suppress" if channel.stderr == "suppress" else "capture",
            max_capture_bytes=channel.max_capture_bytes,
            max_stderr_bytes=channel.max_stderr_bytes, stdin=built.prompt.encode("utf-8"))
        identities.append(identity)
    speculative.stop_on_sigterm()
    return sum(child is not None for child in speculative.start_all(identities))


def _regular_file(path: Path) -> bool:
    try:
        return path.is_file()  # follows links: /dev/stdin is a pipe or a file
    except ValueError:  # a NUL in the path
        return False
