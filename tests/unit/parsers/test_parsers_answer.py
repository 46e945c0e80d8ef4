"""The ``answer`` parser of explore channels and its citation gate."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mmr.models import ParsedOutput, ParseFailure
from mmr.parsers import parse_answer, parse_channel_output

ANSWER: dict[str, Any] = {"kind": "answer"}
EXPLORE: dict[str, Any] = {"kind": "unwrap-jsonpath", "wrap": "$.result",
                           "error_path": "$.is_error", "then": ANSWER}


def envelope(result: str, *, is_error: bool = False) -> str:
    return json.dumps({"type": "result", "is_error": is_error, "result": result})


@pytest.mark.parametrize(
    "text", ["The handler lives in src/app/routes.py:120.\nSearches run: grep", "NOT FOUND"],
)
def test_cited_or_not_found_answers_pass(text: str) -> None:
    assert parse_answer(envelope(text), EXPLORE) == text
    as_output = parse_channel_output(envelope(text), EXPLORE)
    assert isinstance(as_output, ParsedOutput)
    assert (as_output.summary, as_output.findings, as_output.approved) == (text, [], True)


@pytest.mark.parametrize(
    ("text", "error"),
    [("It is somewhere in the router.", "answer gate: the answer cites no path:line and does "
      "not say NOT FOUND"),
     ("line :120 of something", "answer gate: the answer cites no path:line and does not say "
      "NOT FOUND")],
)
def test_uncited_answers_fail_the_gate(text: str, error: str) -> None:
    failure = parse_answer(envelope(text), EXPLORE)
    assert isinstance(failure, ParseFailure)
    assert (failure.error, failure.reason) == (error, "gate_failed")


def test_an_empty_answer_is_a_parse_error_so_the_retry_policy_applies() -> None:
    failure = parse_answer(envelope("  \n"), EXPLORE)
    assert isinstance(failure, ParseFailure)
    assert (failure.error, failure.reason) == ("answer gate: the answer is empty", "parse_error")


def test_gate_can_be_switched_off_but_empty_still_fails() -> None:
    ungated = {**EXPLORE, "then": {"kind": "answer", "gate": {"require_citation": False}}}
    assert parse_answer(envelope("somewhere"), ungated) == "somewhere"
    assert isinstance(parse_answer(envelope(""), ungated), ParseFailure)


def test_envelope_errors_are_parse_errors() -> None:
    failure = parse_answer(envelope("max turns", is_error=True), EXPLORE)
    assert isinstance(failure, ParseFailure)
    assert failure.reason == "parse_error"
    assert failure.error == "channel reported an error (is_error=true): max turns"


def test_a_findings_parser_is_not_an_answer() -> None:
    failure = parse_answer('{"approved": true}', "default")
    assert isinstance(failure, ParseFailure)
    assert "does not end in an answer parser" in failure.error
