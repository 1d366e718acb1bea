"""Which retrievers a search runs: a value checked once, where a search enters."""

from __future__ import annotations

from enum import Enum


class SearchMode(str, Enum):
    """``dense`` (embeddings), ``sparse`` (BM25 alone) or ``hybrid`` (both, fused)."""

    DENSE = "dense"
    SPARSE = "sparse"
    HYBRID = "hybrid"

    def __str__(self) -> str:
        return self.value

    @classmethod
    def of(cls, value: str) -> SearchMode:
        """``value`` as a mode; anything else is a ValueError naming the valid ones."""
        try:
            return cls(value)
        except ValueError:
            raise ValueError(f"unknown search mode {value!r}; valid: {', '.join(SEARCH_MODES)}") from None


#: The modes' names, as the CLI and the inspector offer them.
SEARCH_MODES = tuple(mode.value for mode in SearchMode)
