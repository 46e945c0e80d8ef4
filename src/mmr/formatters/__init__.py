"""Render a verdict document (:class:`~mmr.models.ReconciledResults`) in an output format.

Renderers return the text without a trailing newline; the caller writes it with
:func:`mmr.cli.output.write_report`, which adds one. Rendering ``github`` also appends the
markdown report to ``$GITHUB_STEP_SUMMARY`` when that names a file (spec ch. 04 §6.6).
An ``rdjsonl`` document with no findings is empty: print nothing for it, not a blank line
(reviewdog cannot parse an empty line).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from mmr.vocabulary import FORMATS, Format

if TYPE_CHECKING:
    from mmr.models import ReconciledResults


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
    if fmt == "sarif":
        from mmr.formatters.sarif import render_sarif

        return render_sarif
    if fmt == "github":
        return _render_github_and_summary
    if fmt == "rdjsonl":
        from mmr.formatters.rdjsonl import render_rdjsonl

        return render_rdjsonl
    raise ValueError(f"unknown output format {fmt!r}; expected one of {', '.join(FORMATS)}")


def _render_github_and_summary(results: ReconciledResults) -> str:
    from mmr.formatters.github import render_github
    from mmr.formatters.step_summary import append_step_summary

    append_step_summary(results)
    return render_github(results)
