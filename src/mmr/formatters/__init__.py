"""formatters."""
