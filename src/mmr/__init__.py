"""mmr: multi-model code review with a gated verdict."""

__version__ = "0.1.0"
#: Where mmr's documentation lives (SARIF ``informationUri`` and each rule's ``helpUri``).
__url__ = "https://github.com/mmr-review/mmr"
