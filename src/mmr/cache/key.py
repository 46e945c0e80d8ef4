"""What makes two channel runs the same: the cache key.

The key is a SHA-256 over the channel's resolved config (with secret values redacted, so
no credential is hashed), the prompt exactly as sent (already redacted before it leaves
mmr), the output parser, the identity of the executable that would run (real path, size
and modification time: a CLI upgrade replaces the file, so it misses) and mmr's version.
Any change to the diff, the prompt parts, the channel config or the CLI misses.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Mapping
from pathlib import Path

from mmr.secrets.redact import redact_channel

KEY_VERSION = 1


def executable_identity(executable: str | None) -> str | None:
    """``realpath:size:mtime_ns`` of the executable on PATH; None when it is not found."""
    if executable is None:
        return None
    found = shutil.which(executable)
    if found is None:
        return None
    real = Path(found).resolve()
    try:
        stat = real.stat()
    except OSError:
        return None
    return f"{real}:{stat.st_size}:{stat.st_mtime_ns}"


def review_cache_key(*, channel: Mapping[str, object], prompt: str, parser: Mapping[str, object],
                     executable: str | None, mmr_version: str,
                     served_model: str | None = None) -> str:
    """The hex cache key of one channel run. ``served_model`` (an HTTP channel's model
    entry as its server lists it) joins the key only when known, so the keys of every
    other channel stay as they were."""
    material: dict[str, object] = {
        "v": KEY_VERSION,
        "mmr": mmr_version,
        "channel": redact_channel(channel),
        "parser": dict(parser),
        "executable": executable,
        "prompt_sha256": hashlib.sha256(prompt.encode("utf-8", "surrogatepass")).hexdigest(),
    }
    if served_model is not None:
        material["served_model"] = served_model
    encoded = json.dumps(material, sort_keys=True, ensure_ascii=True, default=str)
    return hashlib.sha256(encoded.encode("ascii")).hexdigest()
