"""Private key blocks across lines: PEM, OpenSSH, PGP and PuTTY, redacted body line by body line.

Only what looks like key material is replaced: the BEGIN/END markers and the base64 body
lines (``<redacted>``), keeping quotes, indentation and code around them. A block ends at
its END line, or at the first line that does not look like key material — then it is
*unterminated*, reported as such, and the rest of the file stays visible (a stray BEGIN
line in a comment must not hide the code after it). Body lines whose BEGIN line is not in
the diff are caught backwards from their END line, or as a run of full-width base64 lines.

Public PEM material (a certificate, a public key, a CRL, a certificate request, a PGP
public key or signature) is not a secret: its body lines are left as they are, and a run of
full-width lines that turns out to end at a public END line is given back.
"""

from __future__ import annotations

import re
from functools import cache
from typing import NamedTuple

BLOCK_LINE = "<redacted>"


class _Patterns(NamedTuple):
    begin: re.Pattern[str]
    end: re.Pattern[str]
    body: re.Pattern[str]
    header: re.Pattern[str]
    inline: re.Pattern[str]
    public: re.Pattern[str]


@cache
def patterns() -> _Patterns:
    return _Patterns(
        begin=re.compile(r"-*BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-*"
                         r"|PuTTY-User-Key-File-\d+:[^\r\n]*"),
        end=re.compile(r"-*END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-*|Private-MAC:[ \t]*[0-9a-fA-F]+"),
        body=re.compile(r"""(?P<pre>[ \t"'+|>]*)(?P<body>[A-Za-z0-9+/]+={0,2})"""
                        r"""(?P<post>(?:\\[rn])*["',;)]*[ \t]*\+?[ \t]*\\?)"""),
        header=re.compile(r"[ \t\"']*(?:[A-Za-z][A-Za-z0-9-]*:[ \t]|=[A-Za-z0-9+/]{4}\b)"),
        # A whole key inside one line (JSON-escaped or a one-line string): BEGIN … END,
        # or BEGIN then the escaped body up to where the string stops.
        inline=re.compile(
            r"-*BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-*(?:(?:\\[rn])+[A-Za-z0-9+/=:, \\-]*?"
            r"-*END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-*|(?:(?:\\[rn])+[A-Za-z0-9+/=:, -]*)+)"),
        # A public block's BEGIN or END line: any PEM label but a private key's.
        public=re.compile(r"-----(?P<edge>BEGIN|END) (?![A-Z0-9 ]*PRIVATE KEY)"
                          r"(?P<label>[A-Z0-9][A-Z0-9 ]*)-----"),
    )


#: Full-width base64 lines (PEM 64, OpenSSH 70, MIME 76) are key-like even without BEGIN.
_KEY_WIDTHS = frozenset({64, 70, 76})


class BlockState:
    """Per file section: inside a block since line ``opened_at`` (an index into ``out``)."""

    def __init__(self) -> None:
        self.opened_at: int | None = None
        #: Lines redacted only on the strength of the END line to come: (index, original).
        self.tentative: list[tuple[int, str]] = []
        #: Indexes of consecutive full-width base64 lines seen outside any block.
        self.loose_run: list[int] = []
        #: Inside a public block (a certificate…): its body lines are not key material.
        self.public = False


def body_span(content: str, *, lenient: bool = False) -> tuple[int, int] | None:
    """The key material of a body line, or None when the line is not key-looking.

    ``lenient`` accepts any run of the base64 alphabet (inside a block, to be confirmed by
    its END line)."""
    match = patterns().body.fullmatch(content)
    if match is None:
        return None
    body = match.group("body")
    if lenient:
        return match.start("body"), match.end("body")
    # Short lines (a key's last line) need a digit or a base64 symbol, long ones two kinds
    # of character: a lone ``return`` or ``doSomethingUseful`` is code, not key material.
    if len(body) < 4 or (len(body) < 16 and not any(c.isdigit() or c in "+/=" for c in body)):
        return None
    classes = (any(c.isdigit() for c in body) + any(c.islower() for c in body)
               + any(c.isupper() for c in body) + any(c in "+/=" for c in body))
    if classes < 2 or (len(body) >= 16 and classes < 3 and not body.isdigit()):
        return None
    return match.start("body"), match.end("body")


def is_block_header(content: str) -> bool:
    """``Proc-Type: …``, ``Comment: …``, PuTTY's ``Private-Lines: 14``, a PGP checksum."""
    return patterns().header.match(content) is not None


def loose_body(content: str) -> tuple[int, int] | None:
    """A full-width base64 line (key-like even with no BEGIN line in sight)."""
    if not 64 <= len(content) <= 96:
        return None
    span = body_span(content)
    if span is None or span[1] - span[0] not in _KEY_WIDTHS:
        return None
    return span
