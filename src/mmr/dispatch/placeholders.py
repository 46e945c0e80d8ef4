"""argv expansion: ``command`` + ``flags`` → the child's argv.

No shell is ever involved. ``command`` is split on whitespace runs (one tokeniser for
dispatch and the install check); placeholders are expanded in ``flags`` only, except
``{{prompt_file}}``, which MMR 4.0.1 also replaces inside the command's own arguments.

Tokens (``{{name}}``, no spaces inside the braces):

==========================  =============================================================
``{{prompt_file}}``         prompt-file mode: the prompt file's absolute path (substring
                            replace); without it anywhere, the path is appended last.
                            stdin mode: left literal, as in MMR 4.0.1.
``{{findings_schema}}``     ``PlaceholderValues.findings_schema`` (the dispatch passes the
                            JSON of ``dispatch/findings_schema.py``), else left literal.
``{{repo_root}}``           the project root.
``{{command_dir}}``         where the command is installed: the real path's nearest
                            ``node_modules`` folder, else its own folder (left literal
                            when it is not on ``PATH``).
``{{roots}}``               a list (``mmr explore`` roots).
``{{var.NAME}}``            the channel's ``vars`` entry (scalar, null or list).
``{{neutral_home}}``,       the call's neutral directory when one is given; otherwise left
``{{neutral_cwd}}``         literal (MMR 4.0.1 never expands them in flags).
==========================  =============================================================

A flag token whose placeholder resolves to null (or an empty list) is dropped, together
with the ``-flag`` token just before it when the placeholder is the whole token: that is
how an optional ``["--effort", "{{var.effort}}"]`` pair disappears. A list repeats the
preceding ``-flag`` once per item (``--add-dir a --add-dir b``); inside a larger token the
token itself is repeated. Any other ``{{name}}`` is a config error naming channel and token.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from mmr.errors import ConfigError

Scalar = str | int | float | bool
VarValue = Scalar | None | Sequence[Scalar]

PROMPT_FILE_PLACEHOLDER = "{{prompt_file}}"
#: Placeholder grammar; anything else with braces (Go templates ``{{.Name}}``) is literal.
_TOKEN = re.compile(r"\{\{([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_-]+)?)\}\}")
_KNOWN = (
    "{{prompt_file}}, {{findings_schema}}, {{repo_root}}, {{command_dir}}, {{roots}}, "
    "{{var.NAME}}, "
    "{{neutral_home}}, {{neutral_cwd}}"
)


@dataclass(frozen=True)
class PlaceholderValues:
    """What the placeholders of one channel's flags expand to on this call."""

    channel: str
    prompt_file: Path | None = None
    repo_root: Path | None = None
    roots: Sequence[str] | None = None
    vars: Mapping[str, VarValue] = field(default_factory=dict)
    neutral_dir: Path | None = None
    command_dir: Path | None = None
    findings_schema: str | None = None


class _Keep:
    """Marker: leave the token as written."""


_KEEP = _Keep()
Resolved = str | None | list[str] | _Keep


def split_command(command: str) -> list[str]:
    """Tokens of a channel ``command``: whitespace runs, no quoting or expansion."""
    return command.split()


def executable_path(token: str, repo_root: Path) -> str:
    """A relative path (``scripts/review``) counts from the repository root, so a channel
    runs the same from any sub-folder; a plain name is looked up on ``PATH``."""
    return str(repo_root / token) if "/" in token else token


def install_dir(executable: str) -> Path | None:
    """The folder ``executable`` is installed in, for a sandbox that must let the program
    read itself. An npm package's launcher runs a native binary from a sibling package,
    so the nearest ``node_modules`` folder holds both; None when it is not found."""
    found = shutil.which(executable, path=os.environ.get("PATH"))
    if found is None:
        return None
    real = Path(found).resolve()
    return next((p for p in real.parents if p.name == "node_modules"), real.parent)


def _scalar(channel: str, token: str, value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float):
        return str(value)
    raise ConfigError(
        f'channel "{channel}": {token} must be a string, number, boolean, null or a list of '
        f"those, got {type(value).__name__}; fix vars in the channel config"
    )


def _fixed_values(values: PlaceholderValues) -> dict[str, Resolved]:
    neutral: Resolved = _KEEP if values.neutral_dir is None else str(values.neutral_dir)
    return {
        "prompt_file": _KEEP if values.prompt_file is None else str(values.prompt_file),
        "findings_schema": _KEEP if values.findings_schema is None else values.findings_schema,
        "neutral_home": neutral,
        "neutral_cwd": neutral,
        "repo_root": None if values.repo_root is None else str(values.repo_root),
        "command_dir": _KEEP if values.command_dir is None else str(values.command_dir),
        "roots": None if values.roots is None else [str(root) for root in values.roots],
    }


def _resolve_var(var: str, values: PlaceholderValues) -> Resolved:
    token = "{{var." + var + "}}"
    if var not in values.vars:
        defined = ", ".join(sorted(values.vars)) or "none"
        raise ConfigError(
            f'channel "{values.channel}": {token} in flags is not defined in vars '
            f"(defined: {defined}); add it under vars or fix the name"
        )
    value = values.vars[var]
    if value is None:
        return None
    if isinstance(value, Sequence) and not isinstance(value, str):
        return [_scalar(values.channel, token, item) for item in value]
    return _scalar(values.channel, token, value)


def _resolve(name: str, values: PlaceholderValues) -> Resolved:
    if name.startswith("var."):
        return _resolve_var(name[len("var."):], values)
    fixed = _fixed_values(values)
    if name in fixed:
        return fixed[name]
    raise ConfigError(
        f'channel "{values.channel}": unknown placeholder {{{{{name}}}}} in flags '
        f"(known: {_KNOWN})"
    )


def _render(flag: str, resolved: Mapping[str, Resolved], list_item: str | None) -> str:
    def substitute(match: re.Match[str]) -> str:
        value = resolved[match.group(1)]
        if isinstance(value, _Keep):
            return match.group(0)
        if isinstance(value, list):
            return list_item or ""  # a token holds at most one list placeholder
        return value or ""

    return _TOKEN.sub(substitute, flag)


def _as_list(value: Resolved) -> list[str]:
    return value if isinstance(value, list) else []


def expand_flags(flags: Sequence[str], values: PlaceholderValues) -> list[str]:
    """Expand the placeholders of ``flags`` (optional pairs and lists included)."""
    out: list[str] = []
    prev_is_flag = False  # the previous input token was emitted alone and starts with "-"
    for flag in flags:
        names = list(dict.fromkeys(_TOKEN.findall(flag)))
        if not names:
            out.append(flag)
            prev_is_flag = flag.startswith("-") and len(flag) > 1
            continue
        resolved = {name: _resolve(name, values) for name in names}
        whole = _TOKEN.fullmatch(flag) is not None
        lists = [name for name in names if isinstance(resolved[name], list)]
        if len(lists) > 1:
            raise ConfigError(
                f'channel "{values.channel}": flag {flag!r} holds more than one list '
                "placeholder; put each in its own flag"
            )
        empty = any(resolved[n] is None or resolved[n] == [] for n in names)
        if empty:
            if whole and prev_is_flag:
                out.pop()
        elif lists:
            items = _as_list(resolved[lists[0]])
            if whole and prev_is_flag:
                option = out.pop()
                for item in items:
                    out.extend((option, item))
            else:
                out.extend(_render(flag, resolved, item) for item in items)
        else:
            out.append(_render(flag, resolved, None))
        prev_is_flag = False
    return out


def expand_argv(command: str, flags: Sequence[str], *, values: PlaceholderValues) -> list[str]:
    """The full argv for one dispatch: executable, command arguments, expanded flags.

    In prompt-file mode (``values.prompt_file`` set) ``{{prompt_file}}`` is replaced
    everywhere it occurs, or the path is appended when it occurs nowhere.
    """
    tokens = split_command(command)
    if not tokens:
        raise ConfigError(f'channel "{values.channel}": command is empty; set command')
    executable, leading = tokens[0], tokens[1:]
    if values.repo_root is not None:
        executable = executable_path(executable, values.repo_root)
    if any("{{command_dir}}" in flag for flag in flags):
        values = replace(values, command_dir=install_dir(executable))
    args = expand_flags(flags, values)
    if values.prompt_file is not None:
        path = str(values.prompt_file)
        mentioned = any(PROMPT_FILE_PLACEHOLDER in arg for arg in (*leading, *flags))
        leading = [arg.replace(PROMPT_FILE_PLACEHOLDER, path) for arg in leading]
        if not mentioned:
            args.append(path)
    return [executable, *leading, *args]
