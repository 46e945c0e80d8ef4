"""``mmr commands``: print the capability manifest."""

from __future__ import annotations

from typing import Annotated, Literal

import typer

from mmr.cli.output import write_report
from mmr.manifest import manifest_json, manifest_text

ManifestFormat = Literal["text", "json"]


def commands(
    *,
    fmt: Annotated[ManifestFormat, typer.Option(
        "--format", help="text (one line per command) or json (an array).")] = "text",
    as_json: Annotated[bool, typer.Option(
        "--json", help="Shorthand for --format json.")] = False,
) -> int:
    """List every command with a summary, a runnable example and whether it writes."""
    write_report(manifest_json() if as_json or fmt == "json" else manifest_text())
    return 0
