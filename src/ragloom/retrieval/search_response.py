"""What a search hands back beside its results (``SearchResponse``: mode, per-stage
milliseconds, candidate counts, what the relevance gate judged) and the stopwatch timing
its stages."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any

from ragloom.types import SearchResult


@dataclass
class SearchResponse:
    """Results plus what produced them: mode, per-stage milliseconds, candidate counts, the
    best cosine among the results the relevance gate judged and the gate it applied (so a
    caller can say why a query got nothing)."""

    results: list[SearchResult]
    mode: str
    timings_ms: dict[str, float] = field(default_factory=dict)
    candidates: dict[str, int] = field(default_factory=dict)
    best_score: float | None = None
    relevance_gate: float | None = None

    @property
    def gated(self) -> bool:
        """Whether the relevance gate emptied this search (``below_relevance_gate``)."""
        return bool(self.candidates.get("below_relevance_gate"))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class Stopwatch:
    """Milliseconds per stage of one search (``SearchResponse.timings_ms``)."""

    def __init__(self) -> None:
        self.timings: dict[str, float] = {}
        self._last = time.perf_counter()

    def lap(self, stage: str) -> None:
        """``stage`` took the time since the last lap."""
        now = time.perf_counter()
        self.timings[stage] = round((now - self._last) * 1000, 3)
        self._last = now

    def record(self, stage: str, milliseconds: float) -> None:
        """A stage timed on its own (it overlapped another); the next lap starts now."""
        self.timings[stage] = round(milliseconds, 3)
        self._last = time.perf_counter()
