"""The settings table of the TurboQuant store (``stores.turboquant``), in a module of its own
so the store registry can name it without importing the store (numpy)."""

from __future__ import annotations

from pydantic import Field

from ragloom.config.rules import StrictModel


class TurboQuantSettings(StrictModel):
    """``[rag.vector_store.turboquant]``: bits per coordinate and the search's passes."""

    bits: int = Field(4, ge=1, le=8)
    residual: bool = False
    refine_bits: int = Field(0, ge=0, le=8)
    first_pass: int = Field(4000, ge=1, le=10_000_000)
