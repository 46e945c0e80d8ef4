"""The built-in channels as tests name them, read from the registry and the shipped presets.

A test that needs "every built-in" or "the built-ins a review runs by default" imports
these rather than spelling the names out, so adding or enabling a preset changes one file
under ``channels/`` and the registry order in :mod:`mmr.config.defaults`, not the tests.
"""

from __future__ import annotations

from mmr.config.defaults import BUILTIN_CHANNEL_ORDER, builtin_layer
from mmr.config.merge import resolve_extends

#: Every built-in channel, in registry order (the order ``mmr doctor`` and
#: ``mmr config channels`` list them in).
BUILTIN_CHANNELS: list[str] = list(BUILTIN_CHANNEL_ORDER)

_RESOLVED, _ = resolve_extends(builtin_layer()["channels"], {})

#: The built-ins a review dispatches when no config says otherwise: those the presets ship
#: enabled (``enabled`` defaults to true). Tests that run only their fake channels disable
#: these.
ENABLED_BUILTINS: list[str] = [name for name in BUILTIN_CHANNELS
                               if _RESOLVED[name].get("enabled", True) is not False]
