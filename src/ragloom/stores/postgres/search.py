"""Dense search in SQL: the HNSW walk, as wide inside a filter's scope as over the whole
table, and exact ranking of scopes small enough to sort.

pgvector's HNSW index filters after the walk: a walk of ``ef_search`` candidates keeps
only the scope's share of them (19 of 100 for a tenant holding 19% of the rows), so a
filtered search asking for ``top_k`` rows ranks them from a walk that is, inside its
scope, that share as wide. A filtered search here asks the index for as many rows of its
scope as the walk's width (``hnsw.iterative_scan = relaxed_order`` walks on until it has
them, or until ``hnsw.max_scan_tuples``), then ranks those by exact distance: the scope
gets the width an unfiltered search gets, whatever its share. A scope of a few rows is
ranked exactly instead: its rows read through the metadata index and sorted.
"""

from __future__ import annotations

import time
from typing import Any

#: A scope of at most this many rows is ranked exactly (its rows through the metadata
#: index, then sorted): recall 1.0 where a walk would have to pass through every other row.
EXACT_SCOPE_ROWS = 20_000
#: The session's pgvector settings: the walk's width is set per search (``width``).
SESSION = [("hnsw.iterative_scan", "relaxed_order")]


def width(ef_search: int, top_k: int) -> int:
    """The walk's width (``hnsw.ef_search``): the setting, or ``top_k`` up to pgvector's
    largest, 1,000."""
    return max(ef_search, min(top_k, 1000))


def walk_sql(chunks: str, where: str) -> str:
    """Up to ``wanted`` rows ``where`` keeps, in the index's order, then the nearest
    ``top_k`` of them by exact distance (the relaxed scan may hand them out of order).
    Parameters: query, *where's, query, wanted, top_k."""
    return (f"WITH walked AS MATERIALIZED (SELECT id, text, metadata, embedding <=> %b AS "
            f"distance FROM {chunks} WHERE {where} ORDER BY embedding <=> %b LIMIT %s) "
            f"SELECT id, text, metadata, distance FROM walked ORDER BY distance LIMIT %s")


def exact_sql(chunks: str, where: str) -> str:
    """Every row ``where`` keeps, ranked by exact distance (the MATERIALIZED scope keeps
    the planner off the HNSW index). Parameters: *where's, query, top_k."""
    return (f"WITH scope AS MATERIALIZED (SELECT id, text, metadata, embedding FROM {chunks} "
            f"WHERE {where}) SELECT id, text, metadata, embedding <=> %b FROM scope "
            f"ORDER BY 4 LIMIT %s")


class ScopeSizes:
    """How many rows a scope holds, up to EXACT_SCOPE_ROWS + 1, counted through the
    metadata index at most once a minute per scope (a large tenant's count costs)."""

    def __init__(self, chunks: str) -> None:
        self._chunks = chunks
        self._known: dict[tuple[str, ...], tuple[float, int]] = {}

    def small(self, cursor: Any, where: str, params: list[Any]) -> bool:
        """Whether the scope is small enough to rank exactly."""
        key, now = (where, *map(str, params)), time.monotonic()
        known = self._known.get(key)
        if known is None or now - known[0] > 60:
            cursor.execute(f"SELECT count(*) FROM (SELECT 1 FROM {self._chunks} WHERE {where} "
                           f"LIMIT {EXACT_SCOPE_ROWS + 1}) scope", params)
            known = self._known[key] = (now, int(cursor.fetchone()[0]))
        return known[1] <= EXACT_SCOPE_ROWS
