"""The words every layer shares: output formats, severities, the default gate, exit codes.

Defined here once, at the bottom of the layers, and imported by the models, the
formatters, the reconciler and the CLI alike.
Nothing here imports anything of mmr's.
"""

from __future__ import annotations

from typing import Literal, get_args

#: Every ``--format`` a verdict document can be rendered in (``review``, ``results``,
#: ``reconcile``), in the order ``--help`` and the config schema list them: the first three
#: are MMR 4.0.1's, the rest mmr's CI formats. Declared here once; ``FORMATS``, the CLI
#: choices and the config schema derive from it, and :data:`mmr.formatters.RENDERERS` must
#: give each a renderer (a test holds them equal).
Format = Literal["json", "text", "markdown", "sarif", "github", "rdjsonl"]
FORMATS: tuple[Format, ...] = get_args(Format)

Severity = Literal["P0", "P1", "P2", "P3"]
#: Most severe first.
SEVERITIES: tuple[Severity, ...] = ("P0", "P1", "P2", "P3")
SEVERITY_ORDER: dict[str, int] = {"P0": 0, "P1": 1, "P2": 2, "P3": 3}
#: Findings at or above this severity block when neither flag nor config sets one.
DEFAULT_FIX_THRESHOLD: Severity = "P2"

#: How findings of different channels are grouped: MMR 4.0.1's rule, or the rule
#: calibrated on real reviews (:mod:`mmr.reconcile.calibrated`).
ReconcileRule = Literal["reference", "calibrated"]
DEFAULT_RECONCILE_RULE: ReconcileRule = "calibrated"

Verdict = Literal["pass", "degraded-pass", "blocked", "needs-user-decision"]

#: Exit codes (MMR 4.0.1's, with mmr's 4-6 in README's table); a usage error is 1,
#: never 2, because 2 means ``blocked``.
EXIT_PASS = 0
EXIT_ERROR = 1
EXIT_BLOCKED = 2
EXIT_NEEDS_USER_DECISION = 3
EXIT_NOT_FOUND = 5
#: ``results``/``reconcile`` with ``--no-wait`` (or past ``--wait-timeout``) on a running job.
EXIT_STILL_RUNNING = 6
EXIT_INTERRUPTED = 130

#: Exit code for each verdict.
VERDICT_EXIT_CODES: dict[str, int] = {
    "pass": EXIT_PASS,
    "degraded-pass": EXIT_PASS,
    "blocked": EXIT_BLOCKED,
    "needs-user-decision": EXIT_NEEDS_USER_DECISION,
}
