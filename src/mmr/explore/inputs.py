"""Inputs of ``mmr explore`` and the MiniMax wrappers: roots, effort, question.

Everything here is checked before any channel runs, and every failure exits 1: a bad
flag value is a :class:`~mmr.errors.UsageError` (one line, exit 1), a path that
cannot be used an :class:`InputError` (one line); each message names the value and the fix.
The secrets guard is the hard half of explore's defence in depth: a root (or the
review wrapper's worktree) that is, or lies inside, a ``secrets/`` or ``local_secrets/``
directory is refused, whichever way it was spelled (the path as given and its realpath).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from mmr.errors import MmrError, UsageError

EFFORT_LEVELS = ("low", "medium", "high", "xhigh", "max")
Breadth = Literal["medium", "very-thorough"]
SECRET_DIR_NAMES = frozenset({"secrets", "local_secrets"})

BREADTH_HINTS: dict[Breadth, str] = {
    "medium": (
        "medium: stop as soon as you can answer confidently, with citations. Do not sweep "
        "the whole tree once the answer is established."
    ),
    "very-thorough": (
        "very-thorough: sweep every root completely. Try alternate naming conventions "
        "(snake_case, camelCase, kebab-case, plurals, abbreviations, old names) and report "
        "every place the answer lives, not only the first."
    ),
}


class InputError(MmrError):
    """A root, worktree or question file that cannot be used (exit 1)."""


def check_effort(effort: str | None) -> str | None:
    """``effort`` when it is one of :data:`EFFORT_LEVELS` (or None); UsageError otherwise."""
    if effort is not None and effort not in EFFORT_LEVELS:
        raise UsageError(f"--effort {effort!r} is not a thinking depth; use one of "
                         f"{'|'.join(EFFORT_LEVELS)}")
    return effort


def check_positive(value: float | None, flag: str) -> None:
    """UsageError when a numeric flag was given as zero or less."""
    if value is not None and value <= 0:
        raise UsageError(f"{flag} must be greater than 0 (got {value:g})")


def in_secrets_dir(path: Path) -> bool:
    """True when any component of ``path`` is a ``secrets`` or ``local_secrets`` directory."""
    return any(part in SECRET_DIR_NAMES for part in path.parts)


def resolve_existing_dir(raw: str, cwd: Path, flag: str) -> Path:
    """``realpath -e`` of ``raw`` (relative to ``cwd``), refused inside a secrets directory."""
    given = Path(os.path.normpath(cwd / Path(raw).expanduser()))
    if not given.exists():
        raise InputError(f"{flag} {raw}: no such file or directory; pass an existing path")
    resolved = given.resolve(strict=True)
    if in_secrets_dir(given) or in_secrets_dir(resolved):
        raise InputError(f"{flag} {raw}: refusing a path that is or lies inside a secrets/ or "
                         "local_secrets/ directory; choose a root outside it")
    if not resolved.is_dir():
        raise InputError(f"{flag} {raw}: not a directory; pass a directory")
    return resolved


def resolve_roots(raws: Sequence[str], cwd: Path) -> tuple[Path, ...]:
    """Each ``--root`` as an absolute, existing, non-secret directory; duplicates dropped."""
    if not raws:
        raise UsageError("--root is required; pass at least one directory to search")
    roots: list[Path] = []
    for raw in raws:
        root = resolve_existing_dir(raw, cwd, "--root")
        if root not in roots:
            roots.append(root)
    return tuple(roots)


def read_question(prompt_file: str | None, question: str | None, cwd: Path) -> str:
    """The exploration question: ``--prompt-file``'s text or ``--question`` (exactly one)."""
    if (prompt_file is None) == (question is None):
        raise UsageError("pass exactly one of --prompt-file FILE or --question TEXT")
    if prompt_file is not None:
        path = cwd / Path(prompt_file).expanduser()
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            raise InputError(f"--prompt-file {prompt_file}: file not found") from None
        except OSError as exc:
            raise InputError(f"--prompt-file {prompt_file}: cannot read it "
                             f"({exc.strerror or exc})") from None
    else:
        text = question or ""
    if not text.strip():
        raise InputError("the question is empty; write the question to ask into --prompt-file "
                         "or pass --question TEXT")
    return text.strip("\n")


def explore_prompt(roots: Sequence[Path], breadth: Breadth, question: str) -> str:
    """The body the explore preamble wraps: the roots, the breadth hint, then the question."""
    listing = "\n".join(f"- {root}" for root in roots)
    return (f"## Search roots\n{listing}\n\n## Breadth\n{BREADTH_HINTS[breadth]}\n\n"
            f"## Question\n{question}")
