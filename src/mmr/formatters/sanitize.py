"""Channel text made safe for the reader of a report (docs/trust.md, "spoofed output").

Everything in a verdict document that a channel wrote (descriptions, suggestions,
locations, reasons, telemetry) is hostile: it quotes the diff under review. Before the
text and markdown renderers lay it out, :func:`for_terminal` / :func:`for_markdown`
rewrite every string of the document so that:

- a terminal shows it as written: C0 controls except ``\\n``/``\\t``, DEL, C1 controls
  (ESC and CSI/OSC sequences, a lone CR, BS), bidi overrides and marks, the Unicode line
  and paragraph separators and the zero-width characters become visible ``\\xNN`` /
  ``\\uNNNN`` escapes, and continuation lines are indented under the field;
- a CommonMark/GFM reader sees literal text on one line: line endings (a lone CR too)
  are ``<br>``, inline markup and HTML are backslash-escaped, ``@mention`` and ``#123`` do not
  link or notify;
- no line starts (after blanks) with ``::`` or ``##[``, which a GitHub Actions runner
  would execute as a workflow command.

The renderers' own markup is added afterwards, so it is untouched.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

from pydantic import BaseModel

#: What must never reach a terminal or a log raw: C0 (but LF and TAB), DEL, C1, the bidi
#: marks and overrides, the Unicode line/paragraph separators (a line break to many
#: viewers) and the zero-width characters (they hide or join text unseen).
_CONTROL = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u180e\u200b-\u200f\u2028-\u202e"
    "\u2060-\u2069\ufeff]")
_COMMAND_LINE = re.compile(r"(?m)^([ \t]*)(::|##\[)")
_LINE_ENDING = re.compile(r"\r\n|\r|\n")
# `|` is the table's (escape_cell); `_` inside a word cannot emphasise, so it stays as is.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*\[\]<>~&!]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9]))")
_REFERENCE = re.compile(r"([@#])(?=[A-Za-z0-9_-])")
_WORD_JOINER = "\u2060"
#: Continuation lines of a multi-line field sit deeper than any line the text report makes.
TEXT_CONTINUATION = "\n      "

Model = TypeVar("Model", bound=BaseModel)


def visible_controls(text: str) -> str:
    """Every control, ESC, CR, BS and bidi override character as a visible escape."""
    return _CONTROL.sub(_escape_char, text)


def _escape_char(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def json_escaped(json_text: str) -> str:
    """Serialised JSON with every character :func:`visible_controls` shows escaped as
    ``\\uNNNN``: the same strings to a JSON reader, nothing raw for a terminal or a log.
    (The JSON encoder already escapes C0; DEL, C1 and the Unicode ones it writes raw.)"""
    return _CONTROL.sub(lambda m: f"\\u{ord(m.group(0)):04x}", json_text)


def no_workflow_commands(text: str) -> str:
    """A backslash before a line-leading ``::`` or ``##[``: shown, never run."""
    return _COMMAND_LINE.sub(r"\1\\\2", text)


def terminal_text(text: str) -> str:
    """One channel string as the text report prints it."""
    safe = no_workflow_commands(visible_controls(text.replace("\r\n", "\n")))
    return safe.replace("\n", TEXT_CONTINUATION)


def markdown_text(text: str) -> str:
    """One channel string as the markdown report prints it (a table cell or inline)."""
    text = _LINE_ENDING.sub("\n", text)
    text = visible_controls(text)
    text = _MARKDOWN_SPECIAL.sub(r"\\\1", text)
    text = _REFERENCE.sub(lambda m: m.group(1) + _WORD_JOINER, text)
    return no_workflow_commands(text).replace("\n", "<br>")


def code_span(text: str) -> str:
    """``text`` as one inline code span: controls visible, on one line, fenced by more
    backticks than it holds in a row (CommonMark), so it is pasted as written."""
    text = visible_controls(_LINE_ENDING.sub(" ", text))
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def for_terminal(document: Model) -> Model:
    """``document`` with every string made safe for a terminal and a CI log."""
    return _map_strings(document, terminal_text)


def for_markdown(document: Model) -> Model:
    """``document`` with every string made safe for a markdown reader."""
    return _map_strings(document, markdown_text)


def _map_strings(model: Model, change: Callable[[str], str]) -> Model:
    def walk(value: object) -> object:
        if isinstance(value, str):
            return change(value)
        if isinstance(value, BaseModel):
            return _map_strings(value, change)
        if isinstance(value, list):
            return [walk(item) for item in value]
        if isinstance(value, dict):
            return {walk(key): walk(item) for key, item in value.items()}
        return value

    update = {name: walk(getattr(model, name)) for name in type(model).model_fields}
    return model.model_copy(update=update)
