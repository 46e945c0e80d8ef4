"""Round validation and the round budget."""

from __future__ import annotations

import pytest

from mmr.errors import UsageError
from mmr.store.rounds import (
    DEFAULT_MAX_ROUNDS,
    check_max_rounds,
    check_round,
    check_round_budget,
    effective_max_rounds,
)


@pytest.mark.parametrize("bad", [0, -3, 2.5, 1.0, True, "2", None])
def test_round_must_be_a_positive_integer(bad: object) -> None:
    with pytest.raises(UsageError, match=r"^round must be >= 1$"):
        check_round(bad)


@pytest.mark.parametrize("bad", [0, -1, 3.5, False])
def test_max_rounds_must_be_a_positive_integer(bad: object) -> None:
    with pytest.raises(UsageError, match=r"^max-rounds must be >= 1$"):
        check_max_rounds(bad)


def test_valid_values_pass_through() -> None:
    assert check_round(1) == 1 and check_max_rounds(7) == 7


def test_flag_beats_config_beats_builtin_five() -> None:
    assert effective_max_rounds(3, 2) == 3
    assert effective_max_rounds(None, 2) == 2
    assert effective_max_rounds(None, None) == DEFAULT_MAX_ROUNDS == 5


def test_configured_default_applies_with_a_session_too() -> None:
    # Reference: `--session s1 --round 3` with max_rounds_default 2 proceeds (implied 5).
    budget = check_round_budget(3, None, 2)
    assert budget.max_rounds == 2
    assert budget.exceeded
    assert (budget.effective_round, budget.max_rounds) == (3, 2)


def test_round_six_with_a_session_and_default_cap() -> None:
    budget = check_round_budget(6, None, None)
    assert budget.exceeded
    assert (budget.effective_round, budget.max_rounds) == (6, 5)


def test_the_boundary_is_inclusive() -> None:
    assert not check_round_budget(5, None, None).exceeded
    assert not check_round_budget(5, 5, 2).exceeded


def test_no_session_and_no_round() -> None:
    budget = check_round_budget(None, None, None)
    assert budget.effective_round == 1 and not budget.exceeded
    seven = check_round_budget(7, None, None)
    assert (seven.effective_round, seven.max_rounds, seven.exceeded) == (7, 5, True)


def test_budget_validates_its_inputs() -> None:
    with pytest.raises(UsageError, match="round must be >= 1"):
        check_round_budget(0, None, None)
    with pytest.raises(UsageError, match="max-rounds must be >= 1"):
        check_round_budget(1, 0, None)
