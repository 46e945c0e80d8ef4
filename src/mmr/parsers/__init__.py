"""Channel output → findings.

Entry points other areas call:

- :func:`parse_channel_output` — a reply and its ``output_parser`` → ParsedOutput or
  ParseFailure (``reason`` ``parse_error`` or ``gate_failed``); never raises;
- :func:`parse_answer` — an explore reply → its answer text or a ParseFailure;
- :func:`matches_incomplete_guard` — the dispatcher's "was this run cancelled?" probe;
- :func:`extract_model_json` — critique's envelope digger;
- :func:`extract_telemetry` — usage figures from a raw envelope;
- :func:`normalize_external_input` / :func:`read_input` — ``mmr reconcile --input``;
- :func:`register_parser` — add a named parser.

The built-in named parsers register themselves when this package is imported.
"""

from mmr.parsers import builtin as _builtin  # noqa: F401 - registers the built-in parsers
from mmr.parsers.envelope import extract_model_json
from mmr.parsers.errors import GateFailedError, ParseError
from mmr.parsers.external import InvalidExternalInput, normalize_external_input, read_input
from mmr.parsers.registry import get_parser, is_registered, register_parser, registered_names
from mmr.parsers.run import parse_answer, parse_channel_output
from mmr.parsers.telemetry import TELEMETRY_KEYS, extract_telemetry
from mmr.parsers.unwrap import matches_incomplete_guard

__all__ = [
    "TELEMETRY_KEYS",
    "GateFailedError",
    "InvalidExternalInput",
    "ParseError",
    "extract_model_json",
    "extract_telemetry",
    "get_parser",
    "is_registered",
    "matches_incomplete_guard",
    "normalize_external_input",
    "parse_answer",
    "parse_channel_output",
    "read_input",
    "register_parser",
    "registered_names",
]
