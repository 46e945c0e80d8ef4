"""Fake channel CLIs and the ``fake_cli`` pytest fixture (see ``plugin.py``)."""
