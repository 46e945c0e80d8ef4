"""Tests of the channel-output parsers."""
