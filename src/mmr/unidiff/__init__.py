"""unidiff."""
