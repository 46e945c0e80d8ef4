"""The install + auth pre-flight of the resolved channels, and what it prints.

Checks run concurrently (MMR 4.0.1's sequential probing
adds up to a minute before anything is dispatched) unless ``defaults.parallel`` is off;
results are always reported in resolution order. A channel its plan already skipped
(``diff_too_large``, ``credential_refused``, ``nothing_to_review``) is never checked.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

import anyio

from mmr.dispatch.auth import auth_status_to_channel_status, check_channels
from mmr.dispatch.plan import AuthResult
from mmr.models import ChannelStatus
from mmr.prompt.plans import PlannedChannel
from mmr.secrets.redact import redact_text

DRY_RUN_BANNER = "=== DRY RUN - no channels will be dispatched ==="
NO_CHANNEL_PASSED = "No channels passed auth check:"


@dataclass(frozen=True)
class GateResult:
    """One channel after the pre-flight: passed, failed a check, or skipped by its plan."""

    planned: PlannedChannel
    auth: AuthResult | None = None

    @property
    def name(self) -> str:
        return self.planned.name

    @property
    def passed(self) -> bool:
        ok = self.auth is not None and self.auth.status == "ok"
        return ok and self.planned.plan is not None

    @property
    def raw_status(self) -> str:
        """The status dry-run prints: the raw auth result (``failed``, not ``auth_failed``)."""
        return "skipped" if self.auth is None else self.auth.status

    @property
    def recovery(self) -> str | None:
        if self.planned.skip is not None:
            return self.planned.skip.message
        if self.auth is None or not self.auth.recovery:
            return None
        return redact_text(self.auth.recovery)  # already redacted upstream; cheap insurance

    @property
    def channel_status(self) -> ChannelStatus:
        """The status written on the job for a channel that did not pass."""
        return "skipped" if self.auth is None else auth_status_to_channel_status(self.auth)

    @property
    def reason(self) -> str:
        """Why it is not dispatched: its recovery hint, else its skip reason or status."""
        if self.recovery:
            return self.recovery
        if self.planned.skip is not None:
            return self.planned.skip.reason
        return self.raw_status

    def line(self) -> str:
        """``  <name>: <status>[ — <recovery>]``."""
        recovery = self.recovery
        return f"  {self.name}: {self.raw_status}" + (f" — {recovery}" if recovery else "")


def run_preflight(planned: Sequence[PlannedChannel], *, parallel: bool = True) -> list[GateResult]:
    """Check every channel that has a plan (one event loop, concurrently unless
    ``defaults.parallel`` is off); results in resolution order."""
    to_check = [(p.name, p.channel) for p in planned if p.plan is not None]
    found = anyio.run(partial(check_channels, to_check, parallel=parallel)) if to_check else {}
    return [GateResult(p, found.get(p.name)) for p in planned]


def not_dispatched(results: Sequence[GateResult]) -> list[dict[str, str]]:
    """``[{channel, status, reason}]`` for each channel the gate stopped, in order."""
    return [{"channel": r.name, "status": r.channel_status, "reason": r.reason}
            for r in results if not r.passed]


def no_channel_passed_message(results: Sequence[GateResult]) -> str:
    """``No channels passed auth check:`` and one line per channel."""
    return "\n".join([NO_CHANNEL_PASSED, *(r.line() for r in results)])
