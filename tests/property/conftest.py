"""Hypothesis profiles for the hostile-input properties (docs/reliability.md).

``ci`` (the default) keeps each property CI-sized; ``fuzz`` is the long documented run:

    HYPOTHESIS_PROFILE=fuzz /work/venv/bin/pytest -q tests/property

Every property takes its example budget from the loaded profile, so one variable scales
the whole directory; the fixed worst cases (10k-deep nesting, a 1 MB line, a 20 MB diff)
are plain examples that run once in either profile.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_SUPPRESSED = (HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much)

settings.register_profile("ci", max_examples=150, deadline=None, suppress_health_check=_SUPPRESSED)
settings.register_profile(
    "fuzz", max_examples=5000, deadline=None, suppress_health_check=_SUPPRESSED
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
