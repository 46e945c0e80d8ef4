"""The official SARIF 2.1.0 schema (OASIS, errata01), read from ``shared/data/sarif/``.

It sits in the steering repository's ``shared/`` beside this checkout (CI has it) and is
never copied into the project; where it is absent the calling test skips and says why.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
OFFICIAL = REPO_ROOT.parent / "shared" / "data" / "sarif" / "sarif-schema-2.1.0.json"


@functools.cache
def _validator() -> Any:
    import jsonschema

    schema = json.loads(OFFICIAL.read_text(encoding="utf-8"))
    return jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker())


def sarif_errors(log: Any) -> list[str]:
    """Every schema violation in ``log``, as ``path: message``; skips without the schema."""
    pytest.importorskip("jsonschema")
    if not OFFICIAL.is_file():
        pytest.skip(f"the official SARIF schema is not at {OFFICIAL}")
    return sorted(f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
                  for e in _validator().iter_errors(log))
