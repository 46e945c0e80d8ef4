"""A diff cut into shards that each fit a reviewer's prompt budget.

Tokens are estimated offline, characters weighed by class (weights fitted against a real
tokenizer by ``benchmarks/fit_token_estimate.py``). Cuts fall between files; a file too
large for one shard is cut between hunks, each piece under the file's header lines.
"""

from __future__ import annotations

from dataclasses import dataclass

from mmr.unidiff.sections import FileSection, split_sections

#: Tokens per letter, digit, space or tab, newline, ASCII punctuation, and non-ASCII byte.
TOKEN_WEIGHTS = (0.2110, 0.7805, 0.1268, 0.1349, 0.5976, 1.3002)
#: Each byte of text as its class letter (``L D S N P O``), for counting at C speed.
_CLASSES = bytes(
    ord("L") if chr(b).isalpha() else ord("D") if chr(b).isdigit()
    else ord("N") if b == 10 else ord("S") if chr(b).isspace()
    else ord("P") if 32 < b < 127 else ord("O")
    for b in range(128)) + b"O" * 128


def char_classes(text: str) -> tuple[int, int, int, int, int, int]:
    """How many letters, digits, spaces, newlines, punctuation and non-ASCII bytes."""
    classes = text.encode("utf-8", "surrogatepass").translate(_CLASSES)
    return (classes.count(b"L"), classes.count(b"D"), classes.count(b"S"),
            classes.count(b"N"), classes.count(b"P"), classes.count(b"O"))


def estimate_tokens(text: str) -> int:
    """The estimated token count of ``text`` (no tokenizer needed)."""
    return round(sum(w * n for w, n in zip(TOKEN_WEIGHTS, char_classes(text), strict=True)))


@dataclass(frozen=True)
class Shard:
    """One part of the diff: its text, the files it holds and its estimated tokens."""

    diff: str
    files: tuple[str, ...]
    tokens: int


def _pieces(section: FileSection, budget: int) -> list[tuple[str, int]]:
    """The section whole when it fits, else its hunks in groups under the file's header."""
    text = "".join(section.lines)
    tokens = estimate_tokens(text)
    if tokens <= budget:
        return [(text, tokens)]
    starts = [i for i, line in enumerate(section.lines) if line.startswith("@@")]
    if not starts:
        return [(text, tokens)]
    header = "".join(section.lines[:starts[0]])
    hunks = ["".join(section.lines[a:b]) for a, b in zip(starts, [*starts[1:], None], strict=True)]
    pieces: list[tuple[str, int]] = []
    base = estimate_tokens(header)
    for hunk in hunks:
        size = estimate_tokens(hunk)
        if pieces and pieces[-1][1] + size <= budget:
            pieces[-1] = (pieces[-1][0] + hunk, pieces[-1][1] + size)
        else:  # a single hunk over the budget still goes whole, alone
            pieces.append((header + hunk, base + size))
    return pieces


def shard_diff(diff: str, budget: int) -> list[Shard]:
    """``diff`` in shards of at most ``budget`` estimated tokens where cuts allow, in order."""
    preamble, sections = split_sections(diff)
    shards: list[Shard] = []
    text, files, tokens = [preamble], list[str](), estimate_tokens(preamble)
    for section in sections:
        for piece, size in _pieces(section, budget):
            if files and tokens + size > budget:
                shards.append(Shard("".join(text), tuple(files), tokens))
                text, files, tokens = [], [], 0
            text.append(piece)
            tokens += size
            if section.display_path not in files:
                files.append(section.display_path)
    if files or not shards:
        shards.append(Shard("".join(text), tuple(files), tokens))
    return shards
