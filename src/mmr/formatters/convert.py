"""Render a saved verdict document in another format, without reviewing again.

    python -m mmr.formatters.convert --format sarif --output mmr.sarif results.json

The GitHub Action (``action.yml``) reviews once with ``--format json`` and renders that
document twice: for the job log (``github`` by default) and for code scanning (``sarif``).
A review takes minutes and costs money, so it is never run a second time to get a second
format. The input is the document ``--format json`` printed (``-`` reads stdin).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import cast

from pydantic import ValidationError

from mmr.formatters import render
from mmr.log import stderr_line
from mmr.models import ReconciledResults
from mmr.vocabulary import FORMATS, Format


class DocumentError(ValueError):
    """The input is not a verdict document."""


def convert(document: str, fmt: Format) -> str:
    """The verdict document ``document`` (JSON text) rendered in ``fmt``."""

    try:
        results = ReconciledResults.model_validate(json.loads(document))
    except (json.JSONDecodeError, ValidationError) as exc:
        first_line = str(exc).splitlines()[0]
        raise DocumentError(f"not a verdict document (mmr --format json): {first_line}") from None
    return render(results, fmt)


def main(argv: Sequence[str] | None = None) -> int:
    """Convert one document; exit 0, or 1 with a one-line message on stderr."""
    parser = argparse.ArgumentParser(
        prog="python -m mmr.formatters.convert",
        description="Render a saved mmr verdict document (JSON) in another format.",
    )
    parser.add_argument("document", help="the JSON document a review printed; - for stdin")
    parser.add_argument("--format", dest="fmt", required=True, choices=FORMATS)
    parser.add_argument("--output", help="write here instead of stdout")
    args = parser.parse_args(argv)
    try:
        text = sys.stdin.read() if args.document == "-" else _read(Path(args.document))
        rendered = convert(text, cast("Format", args.fmt))
        payload = rendered + "\n" if rendered else ""
        if args.output:
            Path(args.output).write_text(payload, encoding="utf-8", errors="replace")
        else:
            sys.stdout.buffer.write(payload.encode("utf-8", "replace"))
            sys.stdout.flush()
    except (DocumentError, OSError) as exc:
        stderr_line(f"mmr: error: {exc}")
        return 1
    return 0


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise OSError(f"cannot read {path}: {exc.strerror or exc}") from None


if __name__ == "__main__":
    raise SystemExit(main())
