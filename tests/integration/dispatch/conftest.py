"""Fixtures for the dispatch integration tests (``fake_cli`` comes from the suite-wide
``tests.fakes.plugin``, registered in ``tests/conftest.py``)."""
