"""Every sample document, rendered in every format, byte for byte against its golden file.

``results-blocked.json`` is the reference's observed output pretty-printed
as ``JSON.stringify(…, null, 2)`` prints it; ``results-blocked.txt``/``.md`` were written by
hand from MMR 4.0.1's formats. The other golden files pin mmr's additive lines.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mmr.formatters import RENDERERS, render
from mmr.vocabulary import FORMATS

from .samples import SAMPLES

GOLDEN = Path(__file__).parent / "golden"
EXTENSIONS = {
    "json": "json", "text": "txt", "markdown": "md",
    "sarif": "sarif.json", "github": "github.txt", "rdjsonl": "rdjsonl",
}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("stem", sorted(SAMPLES))
def test_render_matches_golden(stem, fmt):
    expected = (GOLDEN / f"{stem}.{EXTENSIONS[fmt]}").read_bytes().decode("utf-8")
    rendered = render(SAMPLES[stem](), fmt)
    # What is printed: the document and a newline; nothing at all for an empty document
    # (rdjsonl without findings), since a line-oriented reader cannot parse a blank line.
    assert (rendered + "\n" if rendered else "") == expected


def test_unknown_format_is_refused():
    with pytest.raises(ValueError, match="unknown output format 'xml'"):
        render(SAMPLES["results-pass"](), "xml")  # type: ignore[arg-type]


def test_every_format_has_one_renderer_in_the_declared_order():
    assert tuple(RENDERERS) == FORMATS
    assert FORMATS == ("json", "text", "markdown", "sarif", "github", "rdjsonl")
