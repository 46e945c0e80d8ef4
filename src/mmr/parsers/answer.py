"""``answer``: an explore channel's reply is the answer text itself.

The gate (``require_citation``, on by default) asks the answer to cite a ``path:line``
or to say ``NOT FOUND`` (``gate_failed`` otherwise). An empty answer is a ``parse_error``:
``mmr explore`` retries an empty result, and the presets retry on ``parse_error``.
"""

from __future__ import annotations

from mmr.parsers.citations import find_citation
from mmr.parsers.errors import GateFailedError, ParseError
from mmr.parsers.specs import AnswerSpec

NOT_FOUND = "NOT FOUND"
EMPTY_ANSWER = "answer gate: the answer is empty"
UNCITED_ANSWER = "answer gate: the answer cites no path:line and does not say NOT FOUND"


def check_answer(text: str, spec: AnswerSpec) -> str:
    """Return ``text`` unchanged when it passes the gate; raise a ParseError otherwise."""
    if not text.strip():
        raise ParseError(EMPTY_ANSWER)
    if spec.gate.require_citation and NOT_FOUND not in text and find_citation(text) is None:
        raise GateFailedError(UNCITED_ANSWER)
    return text
