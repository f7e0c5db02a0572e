"""The hypothesis profiles of the suite, so a property test costs a known amount of time in `make test`.

``ci`` (the default) is derandomized: every run tries the same examples, so a failure in CI is a failure on
every machine, and the example count is bounded so the fuzz suite adds about 40 s to `make test`. ``deep``
(``HYPOTHESIS_PROFILE=deep``) is for long local runs hunting new crashes: random, many more examples, and the
example database on, so a failure found once is replayed first next time.

``EXAMPLE_DEADLINE`` is the fuzz suite's time bound: one example that takes longer fails as a hang.
Tests that need fewer examples (each one starts a process or an HTTP exchange) ask for ``budget(fraction)``.
"""

from __future__ import annotations

import os
from datetime import timedelta

from hypothesis import HealthCheck, settings

CI = "ci"
DEEP = "deep"
PROFILE_ENV = "HYPOTHESIS_PROFILE"
# The time bound of one fuzz example; far above what any example needs, far below a hang.
EXAMPLE_DEADLINE = timedelta(seconds=5)
CI_EXAMPLES = 100
DEEP_EXAMPLES = 5_000

settings.register_profile(
    CI, derandomize=True, database=None, max_examples=CI_EXAMPLES, deadline=EXAMPLE_DEADLINE, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow])
settings.register_profile(
    DEEP, derandomize=False, max_examples=DEEP_EXAMPLES, deadline=EXAMPLE_DEADLINE, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow])


def load_profile() -> str:
    """Load the profile named by ``HYPOTHESIS_PROFILE`` (default ``ci``); returns its name."""
    name = os.environ.get(PROFILE_ENV, CI)
    settings.load_profile(name)
    return name


def budget(fraction: float, *, minimum: int = 5, deadline: timedelta | None = EXAMPLE_DEADLINE) -> settings:
    """Settings for a test whose examples are expensive: ``fraction`` of the profile's examples (at least
    ``minimum``)."""
    return settings(max_examples=max(minimum, int(settings.default.max_examples * fraction)), deadline=deadline)
