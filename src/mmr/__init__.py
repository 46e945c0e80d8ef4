"""mmr: multi-model code review with a gated verdict."""

import sys
import types

__version__ = "0.1.0"


def _get_no_plugins() -> tuple[()]:
    return ()


def _skip_pydantic_plugin_discovery() -> None:
    """Stand in for pydantic's plugin loader before pydantic is imported.

    The real loader imports ``importlib.metadata`` and scans every installed
    distribution's entry points the first time a model is defined (15-25 ms of every
    command's start-up). mmr's models are validated by mmr alone; no pydantic plugin
    (tracing, logging) has any business observing a reviewer's reply or a config file.
    """
    name = "pydantic.plugin._loader"
    if name not in sys.modules:
        loader = types.ModuleType(name)
        loader.get_plugins = _get_no_plugins  # type: ignore[attr-defined]
        sys.modules[name] = loader


_skip_pydantic_plugin_discovery()
