"""dispatch."""
