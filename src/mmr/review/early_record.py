"""Writing the early start's recipe from a ``review --sync`` dispatch (see :mod:`.early`).

The dispatcher reports each channel's first request at the chokepoint
(``DispatchContext.on_first_request``); once every channel has spawned,
:meth:`RecipeRecorder.save` stores the reproducible ones under this run's key. A request is
recorded only when a later run can rebuild it exactly: its prompt on stdin (no prompt
file), no neutral posture, no value holding the job's id or directory or a neutral
directory, stderr captured or suppressed (a passthrough child would write to the terminal
before it is adopted), no ``assert_clean_tree`` (its snapshot of the work tree must come
before the channel runs), and a subprocess channel's own pass (not a compensating one). A
request whose argv or environment overlay holds a secret — a secret-named flag or
variable, a credential-shaped value — is not recorded either: a recipe never stores one
(the key hashes the environment; it keeps none of it).
"""

from __future__ import annotations

import os
from contextlib import suppress
from typing import TYPE_CHECKING, Any

from mmr.cache.recipe import Recipe, RecipeChannel
from mmr.cache.recipe_store import save_recipe
from mmr.config.paths import jobs_dir, mmr_home
from mmr.dispatch.cached import cache_material
from mmr.dispatch.isolation import NEUTRAL_DIR_PREFIX
from mmr.process.reaper import MARK_VAR
from mmr.process.types import redact_argv
from mmr.prompt.plans import prompt_spec
from mmr.secrets.redact import is_command_secret_key, redact_channel, redact_text

if TYPE_CHECKING:
    from mmr.cache.store import ReviewCache
    from mmr.dispatch.plan import ChannelPlan
    from mmr.process.types import ProcessRequest
    from mmr.review.run import ReviewSetup


class RecipeRecorder:
    """Collects the first requests of one dispatch and saves them as the key's recipe."""

    def __init__(self, key: str, setup: ReviewSetup, job_id: str) -> None:
        self.key = key
        self.setup = setup
        self.job_id = job_id
        self._requests: dict[str, tuple[ChannelPlan, ProcessRequest]] = {}
        self._saved = False
        self.cache: ReviewCache | None = None  #: the dispatch's review cache, if any

    def __call__(self, plan: ChannelPlan, request: ProcessRequest) -> None:
        if plan.compensator is None and plan.name not in self._requests:
            self._requests[plan.name] = (plan, request)

    def _entry(self, plan: ChannelPlan, request: ProcessRequest) -> RecipeChannel | None:
        name = plan.name
        planned = next((p for p in self.setup.planned if p.name == name), None)
        if planned is None or planned.plan is None or planned.channel.assert_clean_tree \
                or request.prompt_file is not None \
                or request.stderr == "passthrough" or request.stdin is None:
            return None  # (stdin is the plan's prompt: run_attempt encodes it, as the lane)
        env = dict(os.environ if request.env is None else request.env)
        env.pop(MARK_VAR, None)
        env_set = tuple(sorted((k, v) for k, v in env.items() if os.environ.get(k) != v))
        env_unset = tuple(sorted(k for k in os.environ if k not in env and k != MARK_VAR))
        cwd = None if request.cwd is None else str(request.cwd.absolute())
        values = [*request.argv, *(v for _, v in env_set), cwd or ""]
        forbidden = (self.job_id, str(jobs_dir()), NEUTRAL_DIR_PREFIX)
        if any(word in value for value in values for word in forbidden) \
                or _holds_secret(request.argv, env_set):
            return None
        spec = prompt_spec(planned.channel)
        return RecipeChannel(
            name=name, argv=request.argv, env_set=env_set, env_unset=env_unset, cwd=cwd,
            stderr=request.stderr, max_capture_bytes=request.max_capture_bytes,
            max_stderr_bytes=request.max_stderr_bytes, max_diff_lines=spec.max_diff_lines,
            on_credentials=spec.on_credentials, diff_exclude=spec.diff_exclude,
            wrapper=spec.wrapper, cache=self._material(plan))

    def _material(self, plan: ChannelPlan) -> dict[str, Any] | None:
        if not self._caching():
            return None
        material = cache_material(plan)  # the key redacts the channel first: so may we
        return {**material, "channel": redact_channel(material["channel"])}

    def _caching(self) -> bool:
        return self.cache is not None and self.cache.enabled

    def _cache_settings(self) -> dict[str, Any] | None:
        cache = self.cache
        if cache is None or not cache.enabled:
            return None
        return {"root": str(cache.root.absolute()), "max_age_s": cache.max_age_s,
                "max_bytes": cache.max_bytes}

    def recipe(self) -> Recipe | None:
        """The recipe of what was recorded; None when no request can be reproduced."""
        setup = self.setup
        channels = [entry for plan, request in self._requests.values()
                    if (entry := self._entry(plan, request)) is not None]
        if not channels or setup.parts is None:
            return None
        defaults = setup.loaded.defaults
        return Recipe(
            key=self.key, diff_exclude=tuple(defaults.diff_exclude or ()),
            max_diff_lines=setup.request.max_diff_lines or defaults.max_diff_lines,
            review_criteria=setup.parts.review_criteria,
            template_criteria=setup.parts.template_criteria, focus=setup.parts.focus,
            channels=tuple(channels), cache=self._cache_settings())

    def save(self) -> None:
        """Store the recipe; a cache that cannot be written only costs the next early start."""
        if self._saved:
            return
        self._saved = True
        recipe = self.recipe()
        if recipe is not None:
            with suppress(OSError, ValueError):
                save_recipe(mmr_home(), recipe)


def _holds_secret(argv: tuple[str, ...], env_set: tuple[tuple[str, str], ...]) -> bool:
    if redact_argv(argv) != list(argv) or any(redact_text(arg) != arg for arg in argv):
        return True
    return any(is_command_secret_key(name) or redact_text(value) != value
               for name, value in env_set)


def recorder_for(setup: ReviewSetup, job_id: str) -> RecipeRecorder | None:
    """The recorder of this run, when the early start computed its key and the run's
    dispatch can be replayed (parallel, nothing proposed, no rounds)."""
    from mmr.review.early import pending_key

    key = pending_key()  # set only for a review the early start found eligible
    proposed = setup.proposed
    if key is None or not setup.loaded.defaults.parallel or proposed.config_file_changed \
            or proposed.ack_files_changed:
        return None
    return RecipeRecorder(key, setup, job_id)
