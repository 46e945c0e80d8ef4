"""``mmr explain [topic]``: short built-in explanations of mmr's concepts.

The prose lives in ``templates/explain/<topic>.md``; topics are listed alphabetically.
``severity.md`` is generated from :mod:`mmr.severity` (``python -m mmr.severity``), so the
scale reads the same there as in the prompt and the config comments.
"""

from __future__ import annotations

from typing import Annotated

import typer

from mmr.cli.output import write_report
from mmr.errors import MmrError
from mmr.resources import read_template

#: Every topic, alphabetically; each has ``templates/explain/<topic>.md``.
TOPICS = (
    "channels", "compensation", "config", "explore", "minimax", "provenance", "redaction",
    "scopes", "severity", "trust",
)


def explain(
    *,
    topic: Annotated[str | None, typer.Argument(
        metavar="TOPIC", show_default=False, help="The concept to explain.")] = None,
) -> int:
    """Explain a concept (channels, config, compensation …); no topic lists them."""
    write_report(topic_text(topic))
    return 0


def topic_text(topic: str | None) -> str:
    """The text for ``topic``, or the list of topics when it is ``None``."""
    available = ", ".join(TOPICS)
    if topic is None:
        return f"Topics: {available}\nRun `mmr explain <topic>` for any of them."
    name = topic.strip().lower()
    if name not in TOPICS:
        raise MmrError(f"Unknown topic '{topic}'. Available: {available}")
    return read_template(f"explain/{name}.md").rstrip()
