"""Exceptions raised inside parsers; ``parse_channel_output`` turns them into a ParseFailure.

They never reach the user as a traceback: the message is the text that follows
``Failed to parse channel output: ``.
"""

from __future__ import annotations


class ParseError(ValueError):
    """The reply does not parse (``reason: parse_error`` at settle)."""


class UnbalancedError(ParseError):
    """A bracket opened and the text ended first (a truncated reply)."""


class MismatchError(ParseError):
    """A closer did not match the innermost open bracket (for example ``{]``)."""


class GateFailedError(ParseError):
    """The reply parsed but failed its parser's gate (``reason: gate_failed``)."""
