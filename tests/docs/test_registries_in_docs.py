"""The pages that list a registry's names list them all, in the registry's order."""

from __future__ import annotations

import re
from pathlib import Path

from mmr.vocabulary import FORMATS

ROOT = Path(__file__).resolve().parents[2]


def _code_spans(text: str) -> list[str]:
    return re.findall(r"`([^`]+)`", text)


def test_the_readme_names_every_output_format_in_order() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    paragraph = readme[readme.index("Output formats:"):].split("Exit codes:", 1)[0]
    assert tuple(_code_spans(paragraph)) == FORMATS


def test_the_github_action_doc_names_every_output_format() -> None:
    page = (ROOT / "docs" / "github-action.md").read_text(encoding="utf-8")
    [row] = [line for line in page.splitlines() if line.startswith("| `format` |")]
    listed = _code_spans(row.split("|")[3])
    assert sorted(listed) == sorted(FORMATS)
