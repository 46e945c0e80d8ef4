"""MMR 4.0.1's option grammar, applied to one command's arguments before Click sees them.

Click and yargs (MMR 4.0.1's parser) disagree on points scripts rely on: yargs array
options are greedy (``--channels a b``), a value-taking option never swallows a flag
(``--diff --pr 5`` is an error), surplus positionals and unknown options are named in the
error, and camel-case spellings (``--dryRun``) are accepted. :func:`normalise` checks a
command's tokens against a :class:`CommandSpec` and returns an unambiguous argv for Click:
options first, one value per occurrence, then ``--`` and the positionals.

Errors name the first bad argument as typed (``unknown option '--bogus'; did you mean
'--base'?``): mmr's own wording, not yargs' (docs/differences/cli-and-output.md).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from difflib import get_close_matches

from mmr.errors import UsageError

_NUMBER = re.compile(r"-\d+(\.\d+)?$")
_CAMEL_HUMP = re.compile(r"(?<=[a-z0-9])([A-Z])")


class ArgvError(UsageError):
    """A command line that breaks the grammar; the message names the argument as typed."""


def did_you_mean(word: str, candidates: Sequence[str]) -> str:
    """``; did you mean 'X'?`` for the closest candidate, or "" when none is close.

    Names are compared without their dashes (``--bogus`` is not close to ``--focus``);
    a short ``-h`` suggests the first long option starting with its letter.
    """
    bare = word.lstrip("-").lower()
    if len(word) == 2 and word[0] == "-" and word[1].isalpha():
        close = [c for c in candidates if c.startswith("--" + bare)][:1]
    else:
        by_name = {c.lstrip("-").lower(): c for c in reversed(candidates)}
        close = [by_name[m] for m in get_close_matches(bare, list(by_name), n=1, cutoff=0.7)]
    return f"; did you mean '{close[0]}'?" if close else ""


def unknown(kind: str, word: str, candidates: Sequence[str]) -> ArgvError:
    """``unknown option '--bogus'`` (or command) with a did-you-mean when one is close."""
    return ArgvError(f"unknown {kind} '{word}'{did_you_mean(word, candidates)}")


@dataclass(frozen=True)
class OptionSpec:
    """One option: every spelling, and whether it takes values."""

    spellings: tuple[str, ...]
    takes_value: bool = True
    greedy: bool = False
    choices: tuple[str, ...] | None = None
    required: bool = False
    #: Spellings that mean "false" (``--no-sync``); they never take a value.
    negations: tuple[str, ...] = ()

    @property
    def canonical(self) -> str:
        return next((s for s in self.spellings if s.startswith("--")), self.spellings[0])


@dataclass(frozen=True)
class ArgumentSpec:
    """One positional parameter; ``variadic`` takes every remaining positional."""

    name: str
    required: bool = True
    variadic: bool = False
    choices: tuple[str, ...] | None = None


@dataclass(frozen=True)
class CommandSpec:
    """The grammar of one command: its options and its positional parameters."""

    options: tuple[OptionSpec, ...] = ()
    arguments: tuple[ArgumentSpec, ...] = ()
    _index: dict[str, OptionSpec] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        for option in self.options:
            for spelling in (*option.spellings, *option.negations):
                self._index[spelling] = option

    def spellings(self) -> list[str]:
        """Every spelling the command accepts, and ``--help``: did-you-mean candidates."""
        return ["--help", *self._index]

    def lookup(self, spelling: str) -> tuple[OptionSpec, bool] | None:
        """The option a spelling names and whether it is a negation (``--no-sync``).

        Camel case (``--dryRun``) is read as kebab case, and every switch also accepts
        ``--no-<name>``, as yargs does.
        """
        kebab = _CAMEL_HUMP.sub(lambda hump: "-" + hump.group(1).lower(), spelling)
        for candidate in (spelling, kebab):
            option = self._index.get(candidate)
            if option is not None:
                return option, candidate in option.negations
        if kebab.startswith("--no-"):
            option = self._index.get("--" + kebab[len("--no-"):])
            if option is not None and not option.takes_value:
                return option, True
        return None


def looks_like_flag(word: str) -> bool:
    """True for ``-x``/``--x``; ``-`` (stdin) and negative numbers are values."""
    return word.startswith("-") and word != "-" and not _NUMBER.match(word)


def normalise(tokens: Sequence[str], spec: CommandSpec) -> list[str]:
    """Validate ``tokens`` (the arguments after the command name) and canonicalise them.

    Raises :class:`ArgvError` naming the first problem found.
    """
    parsed = _Parse(spec)
    parsed.scan(list(tokens))
    parsed.check()
    return parsed.argv()


class _Parse:
    def __init__(self, spec: CommandSpec) -> None:
        self.spec = spec
        self.emitted: list[tuple[OptionSpec, list[str]]] = []
        self.positionals: list[str] = []
        self.unknown: list[str] = []

    def scan(self, tokens: list[str]) -> None:
        i = 0
        while i < len(tokens):
            word = tokens[i]
            i += 1
            if word == "--":
                self.positionals.extend(tokens[i:])
                return
            if not looks_like_flag(word):
                self.positionals.append(word)
                continue
            spelling, has_inline, inline = word.partition("=")
            found = self.spec.lookup(spelling)
            if found is None:
                self.unknown.append(spelling)
                continue
            option, negate = found
            if not option.takes_value or negate:
                if has_inline:
                    raise ArgvError(f"option '{spelling}' does not take a value")
                self._switch(option, negate=negate)
            elif has_inline:
                self.emitted.append((option, [option.canonical, inline]))
            else:
                i = self._values(option, tokens, i)

    def _switch(self, option: OptionSpec, *, negate: bool) -> None:
        if negate and option.negations:
            self.emitted.append((option, [option.negations[0]]))
        elif negate:
            # A flag with no declared negation: "--no-x" undoes earlier "--x" (last one wins).
            self.emitted = [(o, t) for o, t in self.emitted if o is not option]
        else:
            self.emitted.append((option, [option.canonical]))

    def _values(self, option: OptionSpec, tokens: list[str], i: int) -> int:
        taken = 0
        while i < len(tokens) and tokens[i] != "--" and not looks_like_flag(tokens[i]):
            self.emitted.append((option, [option.canonical, tokens[i]]))
            i += 1
            taken += 1
            if not option.greedy:
                break
        if taken == 0 and option.greedy:
            # A bare array option is an explicit empty list, as in yargs (`--channels` alone
            # must reach review as "no channels"). Click cannot express zero occurrences
            # that differ from none, so it gets one empty value, which list commands drop.
            self.emitted.append((option, [option.canonical, ""]))
        elif taken == 0:
            raise ArgvError(f"option '{option.canonical}' needs a value")
        return i

    def check(self) -> None:
        if self.unknown:
            raise unknown("option", self.unknown[0], self.spec.spellings())
        arguments = self.spec.arguments
        if len(self.positionals) < len(arguments):
            first = arguments[len(self.positionals)]
            if first.required:
                raise ArgvError(f"missing argument {first.name.upper()}")
        given = {o.canonical for o, _ in self.emitted}
        missing = [o.canonical for o in self.spec.options
                   if o.required and o.canonical not in given]
        if missing:
            noun = "option" if len(missing) == 1 else "options"
            raise ArgvError(f"missing required {noun} " + ", ".join(f"'{m}'" for m in missing))
        if not any(a.variadic for a in arguments) and len(self.positionals) > len(arguments):
            raise ArgvError(f"unexpected argument '{self.positionals[len(arguments)]}'")
        self._check_choices()

    def _check_choices(self) -> None:
        for option, tokens in self.emitted:
            if option.choices is not None and len(tokens) == 2:
                _require_choice(f"'{option.canonical}'", tokens[1], option.choices)
        for argument, value in zip(self.spec.arguments, self.positionals, strict=False):
            if argument.choices is not None:
                _require_choice(argument.name.upper(), value, argument.choices)

    def argv(self) -> list[str]:
        out = [token for _, tokens in self.emitted for token in tokens]
        if self.positionals:
            out += ["--", *self.positionals]
        return out


def _require_choice(name: str, value: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ArgvError(f"invalid value '{value}' for {name} (choose from {', '.join(choices)})"
                        + did_you_mean(value, choices))
