"""When a channel is dispatched again, and how long it waits first.

Two mechanisms, both inside one channel's own task:

- the **incomplete guard**: a reply whose envelope says the run was cancelled (grok's
  ``stopReason: Cancelled``) is re-dispatched exactly once; a second cancelled reply is
  ``failed`` with reason ``incomplete``;
- the **generic retry policy** (``retry: {attempts, on, delay_ms}``): a final outcome whose
  trigger is listed in ``on`` starts a fresh attempt, up to ``attempts`` more times. A
  timeout is never a trigger (a retry would double a wait that already hit the limit).
"""

from __future__ import annotations

import math
import os
import random

from mmr.config.channel_schema import RetryPolicy

DELAY_ENV = "MMR_INCOMPLETE_RETRY_DELAY_MS"
BASE_DELAY_MS = 2000
#: Jitter keeps sibling mmr processes from retrying in lockstep.
JITTER_MS = 3000

INCOMPLETE_LOG = (
    "The channel's reply remained incomplete after one retry: on both attempts its envelope "
    "matched the output parser's incomplete guard (the run stopped before it finished). "
    "The channel is marked failed so that a compensating pass covers it."
)


def retry_delay_s(configured_ms: int | None = None) -> float:
    """Seconds to wait before a re-dispatch.

    ``configured_ms`` (a policy's ``delay_ms``) wins; else ``MMR_INCOMPLETE_RETRY_DELAY_MS``
    when it reads as a finite number (blank reads as 0, as in JavaScript), clamped at 0;
    else 2.0 s plus a uniform jitter below 3.0 s.
    """
    if configured_ms is not None:
        return max(0, configured_ms) / 1000
    raw = os.environ.get(DELAY_ENV)
    if raw is not None:
        text = raw.strip()
        try:
            value = float(text) if text else 0.0
        except ValueError:
            value = math.nan
        if math.isfinite(value):
            return max(0.0, value) / 1000
    return (BASE_DELAY_MS + random.randrange(JITTER_MS)) / 1000  # noqa: S311 - jitter, not crypto


def retry_trigger(status: str, reason: str | None) -> str | None:
    """The ``retry.on`` trigger an outcome matches, or None when it can never be retried."""
    if status != "failed":
        return None
    if reason is None:
        return "failed"
    if reason in ("parse_error", "gate_failed", "incomplete"):
        return reason
    return None  # dirtied_worktree, interrupted, …: retrying cannot help


def should_retry(policy: RetryPolicy | None, status: str, reason: str | None,
                 rounds_run: int) -> bool:
    """Whether another round may start after ``rounds_run`` rounds ended this way."""
    if policy is None or rounds_run >= 1 + policy.attempts:
        return False
    trigger = retry_trigger(status, reason)
    return trigger is not None and trigger in policy.on


def history_line(round_no: int, status: str, reason: str | None) -> str:
    """``attempt <k>: <status>[ (<reason>)]`` for the log of the final round."""
    suffix = f" ({reason})" if reason else ""
    return f"attempt {round_no}: {status}{suffix}"
