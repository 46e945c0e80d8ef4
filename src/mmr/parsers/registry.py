"""The table of named parsers: ``output_parser: <name>`` in config.

A named parser is a function from the raw reply to a ParsedOutput that raises on
failure. The built-ins register themselves when :mod:`mmr.parsers` is imported, in the
order the docs list them (:mod:`mmr.parsers.builtin`); this table is the one list of
parser names: config load warns about a name it lacks, the config reference lists its
names, and an HTTP channel asks for a JSON reply for every name in it.

Every named parser reads a JSON reply; the parsers that read text (``regex-findings``,
``markdown-findings``) are object specs (:mod:`mmr.parsers.specs`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from mmr.log import get_logger
from mmr.models import ParsedOutput

NamedParser = Callable[[str], ParsedOutput]
ParserT = TypeVar("ParserT", bound=NamedParser)

FALLBACK_PARSER = "default"
_REGISTRY: dict[str, NamedParser] = {}
_warned: set[str] = set()


def register_parser(name: str) -> Callable[[ParserT], ParserT]:
    """Decorator: make ``fn`` available as ``output_parser: <name>``."""
    def decorate(fn: ParserT) -> ParserT:
        _REGISTRY[name] = fn
        return fn

    return decorate


def is_registered(name: str) -> bool:
    """Whether ``name`` is a known parser (config load warns about the others)."""
    return name in _REGISTRY


def registered_names() -> tuple[str, ...]:
    """Every registered name, in registration order (the built-ins first)."""
    return tuple(_REGISTRY)


def get_parser(name: str) -> NamedParser:
    """The parser registered as ``name``; an unknown name falls back to ``default``
    (warned once per name)."""
    parser = _REGISTRY.get(name)
    if parser is not None:
        return parser
    if name not in _warned:
        _warned.add(name)

        get_logger(__name__).warning("parser.unknown_name", name=name, using=FALLBACK_PARSER,
                                     known=sorted(_REGISTRY))
    return _REGISTRY[FALLBACK_PARSER]
