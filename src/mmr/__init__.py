"""mmr: multi-model code review with a gated verdict."""

__version__ = "0.1.0"
