"""The official SARIF 2.1.0 schema (OASIS, errata01), kept in ``tests/data/sarif/``.

The file is the published schema, unchanged; its README gives its source and licence.
"""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path
from typing import Any

import jsonschema

OFFICIAL = Path(__file__).resolve().parent / "data" / "sarif" / "sarif-schema-2.1.0.json"
#: The published file's digest (its README names the same): a local edit fails loudly.
OFFICIAL_SHA256 = "c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e"


@functools.cache
def _validator() -> Any:
    raw = OFFICIAL.read_bytes()
    digest = hashlib.sha256(raw).hexdigest()
    assert digest == OFFICIAL_SHA256, f"{OFFICIAL} is not the published schema (sha256 {digest})"
    schema = json.loads(raw)
    return jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker())


def sarif_errors(log: Any) -> list[str]:
    """Every schema violation in ``log``, as ``path: message``."""
    return sorted(f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
                  for e in _validator().iter_errors(log))
