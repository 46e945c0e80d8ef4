"""``--help`` without typer: the texts :mod:`mmr.cli.help_build` rendered from typer.

Building typer's tree and a pydantic adapter per option costs most of ``mmr review
--help`` (issue 19). The texts are typer's own output at an 80-column width, so they are
used only where typer would print exactly them: a terminal at least 80 columns wide (or
none: a pipe counts as 80), and a command line typer would answer with that help.
"""

from __future__ import annotations

from collections.abc import Sequence


def static_help(args: Sequence[str]) -> str | None:
    """The text ``mmr <args>`` prints on stdout if it is a help request; None otherwise."""
    tokens = list(args)
    if not tokens:
        return None
    word_help = tokens[0] == "help" and not any(t.startswith("-") for t in tokens)
    options = tokens[: tokens.index("--")] if "--" in tokens else tokens
    if not word_help and ("--help" not in options or "--version" in options):
        return None  # not a help request: the texts are not even imported
    from mmr.cli.help_texts import HELP, WIDTH

    if word_help:
        key = " ".join(tokens[1:])  # `mmr help config set`
        if key not in HELP:
            return None
    else:
        path: list[str] = []
        for token in tokens:
            # No command name starts with "-": a flag (or a negative number) ends the path.
            if token.startswith("-") or " ".join([*path, token]) not in HELP:
                break
            path.append(token)
        key = " ".join(path)
    import shutil

    if shutil.get_terminal_size().columns < WIDTH:
        return None
    return HELP[key]
