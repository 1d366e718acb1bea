"""At most a few results per file: one long file whose parts all match a query would
otherwise fill every slot. Results over the cap step aside and come back, after all the
others and in rank order, only when too few other results exist to fill ``top_k``."""

from __future__ import annotations

from collections.abc import Sequence

from ragloom.types import SearchResult


def _file_of(result: SearchResult) -> str | None:
    """The file (or added text) a result comes from; None when unknown (never capped)."""
    meta = result.metadata
    owner = meta.get("path", meta.get("source_id"))
    return None if owner is None else str(owner)


def cap_per_file(results: Sequence[SearchResult], top_k: int, per_file: int) -> list[SearchResult]:
    """The first ``top_k`` of ``results`` (best first) with at most ``per_file`` from one
    file, topped up from the results over the cap when the others run out; ``per_file``
    0 keeps every result in rank order."""
    if per_file <= 0:
        return list(results[:top_k])
    counts: dict[str, int] = {}
    chosen: list[SearchResult] = []
    over: list[SearchResult] = []
    for result in results:
        if len(chosen) >= top_k:
            break
        owner = _file_of(result)
        if owner is not None and counts.get(owner, 0) >= per_file:
            over.append(result)
            continue
        if owner is not None:
            counts[owner] = counts.get(owner, 0) + 1
        chosen.append(result)
    return chosen + over[:top_k - len(chosen)]
