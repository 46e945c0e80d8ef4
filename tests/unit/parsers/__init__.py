"""Tests of the channel-output parsers (spec ch. 03, ch. 06 §2)."""
