"""MMR 4.0.1's option grammar as a pure function (mmr.cli.argv)."""

from __future__ import annotations

import pytest

from mmr.cli.argv import (
    ArgumentSpec,
    ArgvError,
    CommandSpec,
    OptionSpec,
    looks_like_flag,
    normalise,
)

REVIEW = CommandSpec(
    options=(
        OptionSpec(("--diff",)),
        OptionSpec(("--pr",)),
        OptionSpec(("--timeout",)),
        OptionSpec(("--channels",), greedy=True),
        OptionSpec(("--format",), choices=("json", "text", "markdown")),
        OptionSpec(("--sync",), takes_value=False, negations=("--no-sync",)),
        OptionSpec(("--dry-run",), takes_value=False),
        OptionSpec(("--max-rounds",)),
    ),
)
STATUS = CommandSpec(arguments=(ArgumentSpec("job_id"),))
RECONCILE = CommandSpec(
    options=(OptionSpec(("--channel",), required=True),
             OptionSpec(("--input",), required=True)),
    arguments=(ArgumentSpec("job_id"),),
)


def test_value_forms():
    assert normalise(["--diff", "x.patch"], REVIEW) == ["--diff", "x.patch"]
    assert normalise(["--diff=x.patch"], REVIEW) == ["--diff", "x.patch"]
    assert normalise(["--diff=a=b"], REVIEW) == ["--diff", "a=b"]


def test_stdin_dash_is_a_value():
    assert normalise(["--diff", "-"], REVIEW) == ["--diff", "-"]
    assert normalise(["--diff=-"], REVIEW) == ["--diff", "-"]


def test_negative_number_is_a_value_not_a_flag():
    assert normalise(["--timeout", "-5"], REVIEW) == ["--timeout", "-5"]
    assert looks_like_flag("--x") and looks_like_flag("-h")
    assert not looks_like_flag("-") and not looks_like_flag("-1.5")


@pytest.mark.parametrize("argv", [["--diff"], ["--diff", "--pr", "5"], ["--diff", "--"]])
def test_value_option_never_swallows_a_flag(argv):
    with pytest.raises(ArgvError, match=r"^option '--diff' needs a value$"):
        normalise(argv, REVIEW)


@pytest.mark.parametrize(("argv", "expected"), [
    (["--channels"], ["--channels", ""]),
    (["--channels", "--sync"], ["--channels", "", "--sync"]),
    (["--channels", "--"], ["--channels", ""]),
])
def test_bare_array_option_is_an_explicit_empty_list(argv, expected):
    # yargs gives [] here; review then says "No channels enabled".
    assert normalise(argv, REVIEW) == expected


def test_array_option_is_greedy_until_the_next_flag():
    assert normalise(["--channels", "a", "b", "--sync"], REVIEW) == [
        "--channels", "a", "--channels", "b", "--sync",
    ]


def test_array_option_repeats_and_keeps_commas_for_the_command():
    assert normalise(["--channels", "a", "--channels", "b,c"], REVIEW) == [
        "--channels", "a", "--channels", "b,c",
    ]


def test_greedy_array_swallows_a_trailing_positional_like_the_reference():
    spec = CommandSpec(options=REVIEW.options, arguments=(ArgumentSpec("input", required=False),))
    assert normalise(["--channels", "claude", "design.md"], spec) == [
        "--channels", "claude", "--channels", "design.md",
    ]
    assert normalise(["design.md", "--channels", "claude"], spec) == [
        "--channels", "claude", "--", "design.md",
    ]


def test_boolean_negation():
    assert normalise(["--sync", "--no-sync"], REVIEW) == ["--sync", "--no-sync"]
    # A flag declared without a negation: --no-x undoes earlier --x.
    assert normalise(["--dry-run", "--sync", "--no-dry-run"], REVIEW) == ["--sync"]


def test_switch_refuses_an_inline_value():
    with pytest.raises(ArgvError, match=r"^option '--sync' does not take a value$"):
        normalise(["--sync=true"], REVIEW)


def test_camel_case_spellings():
    assert normalise(["--dryRun", "--maxRounds", "3"], REVIEW) == [
        "--dry-run", "--max-rounds", "3",
    ]
    assert normalise(["--noSync"], REVIEW) == ["--no-sync"]
    with pytest.raises(ArgvError, match=r"^unknown option '--SYNC'; did you mean '--sync'\?$"):
        normalise(["--SYNC"], REVIEW)


def test_the_first_unknown_option_or_surplus_positional_is_named_as_typed():
    with pytest.raises(ArgvError, match=r"^unknown option '--bogus'$"):
        normalise(["--bogus"], REVIEW)
    with pytest.raises(ArgvError, match=r"^unexpected argument 'extra'$"):
        normalise(["extra"], REVIEW)
    with pytest.raises(ArgvError, match=r"^unknown option '--bogus'$"):
        normalise(["extra", "--bogus=1", "-h"], REVIEW)
    with pytest.raises(ArgvError, match=r"^unknown option '-h'; did you mean '--help'\?$"):
        normalise(["-h", "--bogus"], REVIEW)
    with pytest.raises(ArgvError, match=r"^unexpected argument 'b'$"):
        normalise(["a", "b"], STATUS)


@pytest.mark.parametrize(("typed", "suggestion"), [
    ("--chanels", "--channels"), ("--dryrun", "--dry-run"), ("--fromat", "--format"),
    ("--timout", "--timeout"), ("--max-round", "--max-rounds"), ("--no-snyc", "--no-sync"),
])
def test_a_close_misspelling_gets_a_did_you_mean(typed, suggestion):
    with pytest.raises(ArgvError, match=rf"^unknown option '{typed}'; did you mean "
                                        rf"'{suggestion}'\?$"):
        normalise([typed], REVIEW)


def test_nothing_close_gets_no_suggestion():
    with pytest.raises(ArgvError, match=r"^unknown option '--bogus'$"):
        normalise(["--bogus"], REVIEW)  # not "--focus": names are compared without dashes


def test_missing_positional():
    with pytest.raises(ArgvError,
                       match=r"^missing argument JOB_ID$"):
        normalise([], STATUS)


def test_missing_required_options():
    with pytest.raises(ArgvError, match=r"^missing required options '--channel', '--input'$"):
        normalise(["job"], RECONCILE)
    with pytest.raises(ArgvError, match=r"^missing required option '--input'$"):
        normalise(["job", "--channel", "x"], RECONCILE)


def test_invalid_choice_block():
    with pytest.raises(ArgvError) as caught:
        normalise(["--format", "xml"], REVIEW)
    assert str(caught.value) == (
        "invalid value 'xml' for '--format' (choose from json, text, markdown)")
    with pytest.raises(ArgvError, match=r"; did you mean 'text'\?$"):
        normalise(["--format", "txt"], REVIEW)


def test_double_dash_ends_options_and_positionals_go_last():
    assert normalise(["--", "-5"], STATUS) == ["--", "-5"]
    assert normalise(["job", "--sync"], CommandSpec(
        options=REVIEW.options, arguments=(ArgumentSpec("job_id"),))) == ["--sync", "--", "job"]


def test_variadic_argument_takes_every_positional():
    spec = CommandSpec(arguments=(ArgumentSpec("paths", required=False, variadic=True),))
    assert normalise(["a", "b"], spec) == ["--", "a", "b"]


def test_argument_choices_are_checked():
    spec = CommandSpec(arguments=(ArgumentSpec("topic", choices=("channels", "config")),))
    with pytest.raises(ArgvError,
                       match=r"^invalid value 'nope' for TOPIC \(choose from channels, config\)$"):
        normalise(["nope"], spec)
