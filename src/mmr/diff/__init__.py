"""diff."""
