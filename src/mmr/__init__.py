"""mmr: multi-model code review with a gated verdict."""

import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

__version__ = "0.1.0"
#: Where mmr's documentation lives (SARIF ``informationUri`` and each rule's ``helpUri``).
__url__ = "https://github.com/mmr-review/mmr"

_PYDANTIC_PLUGIN_LOADER = "pydantic.plugin._loader"


def _get_no_plugins() -> tuple[()]:
    return ()


class _NoPydanticPlugins:
    """Import hook standing in for pydantic's plugin loader, only if pydantic is imported.

    The real loader imports ``importlib.metadata`` and scans every installed
    distribution's entry points the first time a model is defined (15-25 ms of every
    command's start-up). mmr's models are validated by mmr alone; no pydantic plugin
    (tracing, logging) has any business observing a reviewer's reply or a config file.
    """

    @classmethod
    def find_spec(cls, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> Any:
        if fullname != _PYDANTIC_PLUGIN_LOADER:
            return None
        from importlib.machinery import ModuleSpec

        return ModuleSpec(fullname, cls)  # type: ignore[arg-type]

    @staticmethod
    def create_module(spec: Any) -> None:
        return None

    @staticmethod
    def exec_module(module: ModuleType) -> None:
        module.get_plugins = _get_no_plugins  # type: ignore[attr-defined]


if _PYDANTIC_PLUGIN_LOADER not in sys.modules:
    sys.meta_path.insert(0, _NoPydanticPlugins)
