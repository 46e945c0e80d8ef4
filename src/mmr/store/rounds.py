"""Round numbers and the round budget of ``review --session/--round/--max-rounds``.

MMR 4.0.1 hard-codes a cap of 5 whenever ``--session`` is given, silently ignoring
``loop_control.max_rounds_default``; mmr uses ``--max-rounds`` when given, else the
configured default, with or without a session. Rounds must be whole numbers (MMR 4.0.1
accepts ``2.5``).
"""

from __future__ import annotations

from dataclasses import dataclass

from mmr.errors import UsageError


def max_rounds_summary(session_id: str | None, round_number: int, max_rounds: int) -> str:
    """``max_rounds_exceeded: session="s1" round=6 > max_rounds=5``."""
    session = session_id or "default"
    return (
        f'max_rounds_exceeded: session="{session}" round={round_number} > max_rounds={max_rounds}'
    )


#: ``loop_control.max_rounds_default`` when the config does not set it.
DEFAULT_MAX_ROUNDS = 5


def _positive_int(value: object, message: str) -> int:
    # bool is an int subclass; True is not a round number.
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise UsageError(message)
    return value


def check_round(value: object) -> int:
    """``value`` when it is an integer ≥ 1, else ``round must be >= 1`` (exit 1)."""
    return _positive_int(value, "round must be >= 1")


def check_max_rounds(value: object) -> int:
    """``value`` when it is an integer ≥ 1, else ``max-rounds must be >= 1`` (exit 1)."""
    return _positive_int(value, "max-rounds must be >= 1")


def effective_max_rounds(max_rounds_flag: int | None, max_rounds_default: int | None) -> int:
    """The cap for this run: the flag, else ``loop_control.max_rounds_default``, else 5.

    ``--session`` deliberately plays no part (MMR 4.0.1's implied 5 is a bug).
    """
    if max_rounds_flag is not None:
        return check_max_rounds(max_rounds_flag)
    if max_rounds_default is not None:
        return check_max_rounds(max_rounds_default)
    return DEFAULT_MAX_ROUNDS


@dataclass(frozen=True)
class RoundBudget:
    """One run's position against its cap. ``round`` is None when ``--round`` was not given."""

    round: int | None
    max_rounds: int

    @property
    def effective_round(self) -> int:
        return 1 if self.round is None else self.round

    @property
    def exceeded(self) -> bool:
        """``round > cap``; the boundary is inclusive (``round == cap`` proceeds)."""
        return self.effective_round > self.max_rounds


def check_round_budget(round: int | None, max_rounds_flag: int | None,
                       max_rounds_default: int | None) -> RoundBudget:
    """Validate the round flags and compute the budget; the caller acts on ``exceeded``.

    Runs after config loading and before the diff is read, any gate, job or session
    write, so nothing here touches the disk.
    """
    checked = None if round is None else check_round(round)
    cap = effective_max_rounds(max_rounds_flag, max_rounds_default)
    return RoundBudget(round=checked, max_rounds=cap)
