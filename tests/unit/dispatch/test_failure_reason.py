"""Failure reasons from where real CLIs put them (issue 17), without npm: the shapes below
are copied from claude 2.1.332, codex 0.171.0 and opencode 1.18.33 runs."""

from __future__ import annotations

import json

from mmr.dispatch.failure_reason import (
    STUCK_LINE,
    STUCK_REPEATS,
    StuckWatch,
    failure_log,
    stuck_log,
)

PROMPT = "Review this diff:\n+def divide(a, b):\n+    return a / b\n"


def test_claudes_envelope_on_a_non_zero_exit() -> None:
    envelope = json.dumps({"type": "result", "is_error": True, "api_error_status": 401,
                           "result": "Invalid API key · Fix external API key"})
    assert failure_log(envelope, "", PROMPT) == "Invalid API key · Fix external API key"


def test_codex_error_lines_first_and_the_echoed_prompt_dropped() -> None:
    stderr = ("OpenAI Codex v0.171.0\n--------\nuser\n" + PROMPT +
              "ERROR: unexpected status 401 Unauthorized: invalid x-api-key\n")
    log = failure_log("", stderr, PROMPT)
    assert log is not None
    assert log.splitlines()[0] == "ERROR: unexpected status 401 Unauthorized: invalid x-api-key"
    assert "def divide" not in log and "[prompt omitted]" in log


def test_opencode_ansi_codes_are_stripped() -> None:
    stderr = "\x1b[0m\n> build · mock-model\n\x1b[0m\n\x1b[91m\x1b[1mError: \x1b[0mbad key\n"
    log = failure_log("", stderr, PROMPT)
    assert log is not None and "\x1b" not in log
    assert log.splitlines()[0] == "Error: bad key"


def test_nothing_said_is_none() -> None:
    assert failure_log("", "", PROMPT) is None
    assert failure_log('{"is_error": false, "result": "fine"}', "", PROMPT) is None


def test_stuck_watch_counts_reconnect_lines_across_chunks() -> None:
    watch = StuckWatch()
    line = b"ERROR: Reconnecting... waiting for network\n"
    assert not watch(b"OpenAI Codex v0.171.0\nuser\n" + line)
    assert not watch(line[:10])  # a line split between reads counts once, when whole
    assert not watch(line[10:])
    assert not watch(b"ERROR: Reconnecting... 1/5\n")  # an ordinary retry is not stuck
    assert watch(line) and watch.count == STUCK_REPEATS


def test_stuck_log_says_why_then_the_clis_own_lines_without_the_prompt() -> None:
    stderr = "user\n" + PROMPT + "ERROR: Reconnecting... waiting for network\n" * 3
    log = stuck_log("", stderr, PROMPT).splitlines()
    assert log[0].startswith(f'stopped after {STUCK_REPEATS} lines of "{STUCK_LINE}"')
    assert log[1] == "ERROR: Reconnecting... waiting for network"
    assert "def divide" not in "\n".join(log)


def test_c1_controls_and_bidi_overrides_are_shown_not_passed_on() -> None:
    """A CLI's (or its server's) error text reaches the terminal: no C1 CSI, no RLO."""
    stderr = "Error: bad \x9b31mkey\u202egnp.exe\n"
    log = failure_log("", stderr, PROMPT)
    assert log == "Error: bad \\x9b31mkey\\u202egnp.exe"
