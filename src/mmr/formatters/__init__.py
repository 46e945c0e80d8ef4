"""Render a verdict document (:class:`~mmr.models.ReconciledResults`) in an output format.

Renderers return the text without a trailing newline; the caller writes it with
:func:`mmr.cli.output.write_report`, which adds one. Rendering ``github`` also appends the
markdown report to ``$GITHUB_STEP_SUMMARY`` when that names a file.
An ``rdjsonl`` document with no findings is empty: print nothing for it, not a blank line
(reviewdog cannot parse an empty line).

Adding a format: its name in :data:`mmr.vocabulary.Format`, its module here, its row in
:data:`RENDERERS`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from mmr.formatters.github import render_github
from mmr.formatters.json import render_json
from mmr.formatters.markdown import render_markdown
from mmr.formatters.rdjsonl import render_rdjsonl
from mmr.formatters.sarif import render_sarif
from mmr.formatters.step_summary import append_step_summary
from mmr.formatters.text import render_text
from mmr.models import ReconciledResults
from mmr.vocabulary import FORMATS, Format


def _render_github_and_summary(results: ReconciledResults) -> str:
    append_step_summary(results)
    return render_github(results)


#: The renderer of each output format, in the order of :data:`mmr.vocabulary.FORMATS`.
RENDERERS: Mapping[Format, Callable[[ReconciledResults], str]] = {
    "json": render_json,
    "text": render_text,
    "markdown": render_markdown,
    "sarif": render_sarif,
    "github": _render_github_and_summary,
    "rdjsonl": render_rdjsonl,
}


def render(results: ReconciledResults, fmt: Format) -> str:
    """``results`` in format ``fmt``; raises ``ValueError`` for a format with no renderer."""
    renderer = RENDERERS.get(fmt)
    if renderer is None:
        raise ValueError(f"unknown output format {fmt!r}; expected one of {', '.join(FORMATS)}")
    return renderer(results)
