"""Fixtures for the dispatch integration tests.

``fake_cli`` comes from ``tests.fakes.plugin``; it is imported here so these tests run
even before ``tests/conftest.py`` loads the plugin suite-wide.
"""

from __future__ import annotations

from tests.fakes.plugin import fake_cli  # noqa: F401  (re-exported fixture)
