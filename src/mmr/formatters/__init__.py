"""Render a verdict document (:class:`~mmr.models.ReconciledResults`) in an output format.

Renderers return the text without a trailing newline; the caller writes it with
:func:`mmr.cli.output.write_report`, which adds one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from mmr.models import ReconciledResults

Format = Literal["json", "text", "markdown"]
FORMATS: tuple[Format, ...] = ("json", "text", "markdown")


def render(results: ReconciledResults, fmt: Format) -> str:
    """``results`` in format ``fmt``; raises ``ValueError`` for a format with no renderer."""
    renderer = _renderer(fmt)
    return renderer(results)


def _renderer(fmt: str) -> Callable[[ReconciledResults], str]:
    if fmt == "json":
        from mmr.formatters.json import render_json

        return render_json
    if fmt == "text":
        from mmr.formatters.text import render_text

        return render_text
    if fmt == "markdown":
        from mmr.formatters.markdown import render_markdown

        return render_markdown
    raise ValueError(f"unknown output format {fmt!r}; expected one of {', '.join(FORMATS)}")
