"""Shell completion: answer the shell's completion requests from the real command tree.

A shell asks by running ``mmr`` with ``_MMR_COMPLETE`` set (``complete_bash``,
``complete_zsh``, ``complete_fish``) and the words typed so far in the environment, or with
``source_<shell>`` to print the script that wires this up. mmr's own argv checks
(:mod:`mmr.cli.dispatch`) would refuse such a call (there are no arguments), so the entry
point hands it here first. typer/Click do the completing; see ``docs/completion.md``.
"""

from __future__ import annotations

from collections.abc import Mapping

import typer

from mmr.cli.app import app
from mmr.log import stderr_line

try:  # typer's bash/zsh/fish classes (the protocol its scripts speak) are not public API
    from typer._completion_classes import completion_init
    from typer.completion import shell_complete

    _AVAILABLE = True
except ImportError:  # a typer without them still runs every command
    _AVAILABLE = False

COMPLETE_VAR = "_MMR_COMPLETE"


def complete(env: Mapping[str, str]) -> int:
    """Print the completions (or the completion script) the shell asked for."""
    if not _AVAILABLE:
        stderr_line("mmr: error: shell completion is not available with this typer")
        return 1
    completion_init()
    command = typer.main.get_command(app)
    return shell_complete(command, {}, "mmr", COMPLETE_VAR, env[COMPLETE_VAR])
