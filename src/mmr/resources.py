"""Where the shipped data files (channel presets, prompt templates) live.

In a wheel they are force-included under ``mmr/_data``; in a source checkout
(editable install, or tests run from the repo) they sit at the repository root.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent
#: The review prompt's template: assembled into every prompt, recognised in echoed replies.
CORE_PROMPT_TEMPLATE = "core-prompt.md"


@cache
def _data_dir(name: str) -> Path:
    installed = _PACKAGE_DIR / "_data" / name
    if installed.is_dir():
        return installed
    checkout = _PACKAGE_DIR.parent.parent / name
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(f"mmr data directory {name!r} is missing from the installation")


def channels_dir() -> Path:
    """Directory holding the built-in channel presets (one YAML file each)."""
    return _data_dir("channels")


def templates_dir() -> Path:
    return _data_dir("templates")


def demo_dir() -> Path:
    """Directory holding ``mmr demo``'s example change, recorded replies and config."""
    return _data_dir("demo")


def read_template(name: str) -> str:
    """Text of ``templates/<name>``; raises FileNotFoundError naming the template."""
    path = templates_dir() / name
    if not path.is_file():
        raise FileNotFoundError(f"template {name!r} not found in {templates_dir()}")
    return path.read_text(encoding="utf-8")
