"""Keep comments where they belong when keys are added to or removed from a ruamel document.

ruamel.yaml stores a comment that sits *between* two entries on the entry before it: the
token after ``enabled: true`` holds its end-of-line comment followed by every comment line
up to the next key, even one indented as the next *outer* key's header (or the file's
closing comment). Naively appending a key puts the new key after those lines; naively
deleting the last key of a block loses them. The helpers below move that "rest" so each
comment line stays in front of the node it preceded.
"""

from __future__ import annotations

from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import CommentMark
from ruamel.yaml.tokens import CommentToken

#: A place a trailing comment token can live: (container, key or index).
Holder = tuple[CommentedMap | CommentedSeq, Any]


def is_block(node: Any) -> bool:
    """A non-empty block-style mapping or sequence (whose entries own the comments)."""
    return isinstance(node, CommentedMap | CommentedSeq) and len(node) > 0 and not (
        node.fa.flow_style()
    )


def tail_holder(container: CommentedMap | CommentedSeq, key: Any) -> Holder:
    """The deepest last entry of ``container[key]``: where the comments after it live."""
    value = container[key]
    if is_block(value):
        last = list(value)[-1] if isinstance(value, CommentedMap) else len(value) - 1
        return tail_holder(value, last)
    return container, key


def last_holder(container: CommentedMap | CommentedSeq) -> Holder | None:
    """:func:`tail_holder` of the container's last entry; None when it is empty."""
    if not len(container):
        return None
    last = list(container)[-1] if isinstance(container, CommentedMap) else len(container) - 1
    return tail_holder(container, last)


def _slot(holder: Holder) -> int:
    # Mappings keep an entry's trailing comment in slot 2, sequences in slot 0.
    return 2 if isinstance(holder[0], CommentedMap) else 0


def _token(holder: Holder) -> CommentToken | None:
    entry = holder[0].ca.items.get(holder[1])
    token = entry[_slot(holder)] if entry else None
    return token if isinstance(token, CommentToken) else None


def take_rest(holder: Holder | None) -> str:
    """Detach and return the comment lines after the holder's own line (``""`` if none)."""
    if holder is None:
        return ""
    token = _token(holder)
    if token is None or "\n" not in token.value:
        return ""
    cut = token.value.index("\n") + 1
    own, rest = token.value[:cut], token.value[cut:]
    if own == "\n":
        holder[0].ca.items[holder[1]][_slot(holder)] = None
    else:
        token.value = own
    return rest


def append_rest(holder: Holder, rest: str) -> None:
    """Make ``rest`` follow the holder's line (after any comment lines already there)."""
    if not rest:
        return
    token = _token(holder)
    if token is not None:
        token.value = token.value + rest
        return
    entry = holder[0].ca.items.setdefault(holder[1], [None, None, None, None])
    entry[_slot(holder)] = CommentToken("\n" + rest, CommentMark(0))


def shift_eol_comment(mapping: CommentedMap, key: Any, old: Any, new: Any) -> None:
    """Keep the gap before ``key``'s end-of-line comment when its scalar changes length."""
    token = _token((mapping, key))
    mark = getattr(token, "start_mark", None)
    if token is None or mark is None or not token.value.startswith("#"):
        return
    mark.column = max(0, mark.column + len(_scalar_text(new)) - len(_scalar_text(old)))


def _scalar_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    text = str(value)
    style = getattr(value, "style", None)
    return f'"{text}"' if style in ('"', "'") else text


Parent = tuple[CommentedMap, Any] | None


def _pre_list(mapping: CommentedMap, parent: Parent) -> list[Any] | None:
    """The comment tokens above a mapping's first key (kept by its parent entry, if nested)."""
    if parent is not None:
        entry = parent[0].ca.items.get(parent[1])
        if entry and len(entry) > 3 and isinstance(entry[3], list):
            return entry[3]
    comment = mapping.ca.comment
    if comment and len(comment) > 1 and isinstance(comment[1], list):
        return comment[1]
    return None


def _set_pre_list(mapping: CommentedMap, parent: Parent, tokens: list[Any]) -> None:
    current = _pre_list(mapping, parent)
    if current is not None:
        current[:] = tokens  # ruamel may share this list between parent and child
        return
    mapping.ca.comment = [None, tokens]
    if parent is not None:
        parent[0].ca.items.setdefault(parent[1], [None, None, None, None])[3] = tokens


def _tokens(text: str) -> list[CommentToken]:
    tokens = []
    for line in text.splitlines(keepends=True):
        body = line.lstrip(" ")
        if not body.strip():
            tokens.append(CommentToken("\n", CommentMark(0)))
        else:
            tokens.append(CommentToken(body, CommentMark(len(line) - len(body))))
    return tokens


def add_first_comments(mapping: CommentedMap, parent: Parent, rest: str) -> None:
    """Append comment lines to those above the mapping's first key."""
    if rest:
        _set_pre_list(mapping, parent, [*(_pre_list(mapping, parent) or []), *_tokens(rest)])


def _owned_line(line: str, column: int) -> bool:
    body = line.lstrip(" ")
    return body.startswith("#") and body.rstrip("\n").strip() != "" and (
        len(line) - len(body) >= column
    ) and line.count("\n") <= 1


def drop_key_comments(rest: str, column: int | None) -> str:
    """``rest`` minus the comment block right above a key at ``column``: it described
    the key and goes with it. A blank line or a shallower comment ends the block."""
    if column is None:
        return rest
    lines = rest.splitlines(keepends=True)
    while lines and _owned_line(lines[-1], column):
        lines.pop()
    return "".join(lines)


def take_first_comments(mapping: CommentedMap, parent: Parent, column: int | None) -> str:
    """Remove the comments above a nested mapping's first key; returns what is left of
    them (the part that did not belong to that key) as text."""
    tokens = list(_pre_list(mapping, parent) or [])
    if column is not None:
        while tokens and _owned_line(" " * tokens[-1].column + tokens[-1].value, column):
            tokens.pop()
    _set_pre_list(mapping, parent, [])
    return "".join(" " * token.column + token.value if token.value.strip() else token.value
                   for token in tokens)
