"""Dense search in SQL: the HNSW walk, as wide inside a filter's scope as over the whole
table, and exact ranking of tenants small enough to sort.

pgvector's HNSW index filters after the walk: a walk of ``ef_search`` candidates keeps
only the scope's share of them (19 of 100 for a tenant holding 19% of the rows), and the
nearest ``top_k`` of those are the result. A filtered walk here is ``ef_search / share``
wide (at most pgvector's 1,000), the share being the planner's estimate of the rows the
filter keeps against the table's: the scope gets about the ``ef_search`` candidates an
unfiltered walk has. A tenant of at most EXACT_SCOPE_ROWS rows is ranked exactly instead:
its rows read through the metadata index, a bounded top-``k`` sort by distance.
"""

from __future__ import annotations

import math
import time
from typing import Any

#: A tenant of at most this many rows is ranked exactly (recall 1.0; at 1M rows a walk
#: 1,000 wide holds only about 20 of a 2% tenant's rows). Measured in docs/benchmarks.md.
EXACT_SCOPE_ROWS = 50_000
#: pgvector's largest ``hnsw.ef_search``.
WIDEST = 1000
#: How long a scope's figures are kept (a count of a large tenant costs).
KEEP_SECONDS = 60.0


def walk_sql(chunks: str, where: str) -> str:
    """The nearest ``top_k`` rows ``where`` keeps, through the HNSW index (pgvector's
    iterative scan walks on until it has them). Parameters: query, *where's, query, top_k."""
    return (f"SELECT id, text, metadata, embedding <=> %b FROM {chunks} WHERE {where} "
            f"ORDER BY embedding <=> %b LIMIT %s")


def exact_sql(chunks: str, where: str) -> str:
    """Every row ``where`` keeps, ranked by exact distance: ``+ 0`` keeps the planner off
    the HNSW index (which orders by ``embedding <=> query`` only), so the rows come through
    the metadata index into a bounded sort. Parameters: query, *where's, top_k."""
    return (f"SELECT id, text, metadata, (embedding <=> %b) + 0 AS distance FROM {chunks} "
            f"WHERE {where} ORDER BY distance LIMIT %s")


class Scopes:
    """What a search needs to know of a filter's scope, kept KEEP_SECONDS per scope: its
    size up to EXACT_SCOPE_ROWS + 1 (counted through the metadata index) and its share of
    the table (the planner's estimates: no rows are read)."""

    def __init__(self, chunks: str) -> None:
        self._chunks = chunks
        self._rows: dict[tuple[str, ...], tuple[float, int]] = {}
        self._shares: dict[tuple[str, ...], tuple[float, float]] = {}
        self._table: tuple[float, float] | None = None  # (when, the table's estimated rows)

    def small(self, cursor: Any, where: str, params: list[Any]) -> bool:
        """Whether the scope is small enough to rank exactly."""
        key, now = (where, *map(str, params)), time.monotonic()
        known = self._rows.get(key)
        if known is None or now - known[0] > KEEP_SECONDS:
            cursor.execute(f"SELECT count(*) FROM (SELECT 1 FROM {self._chunks} WHERE {where} "
                           f"LIMIT {EXACT_SCOPE_ROWS + 1}) scope", params)
            known = _kept(self._rows, key, (now, int(cursor.fetchone()[0])))
        return known[1] <= EXACT_SCOPE_ROWS

    def width(self, cursor: Any, where: str, params: list[Any], ef_search: int) -> int:
        """The walk's width for the scope: ``ef_search`` over its share, at most WIDEST."""
        key, now = (where, *map(str, params)), time.monotonic()
        known = self._shares.get(key)
        if known is None or now - known[0] > KEEP_SECONDS:
            scoped = self._estimate(cursor, f"WHERE {where}", params)
            counted = self._rows.get(key, (0.0, 0))[1]  # at least what was counted
            if self._table is None or now - self._table[0] > KEEP_SECONDS:
                self._table = (now, self._estimate(cursor, "", []))
            share = max(scoped, counted) / max(self._table[1], 1.0)
            known = _kept(self._shares, key, (now, min(max(share, 1e-6), 1.0)))
        return min(WIDEST, max(ef_search, math.ceil(ef_search / known[1])))

    def _estimate(self, cursor: Any, where: str, params: list[Any]) -> float:
        cursor.execute(f"EXPLAIN (FORMAT JSON) SELECT 1 FROM {self._chunks} {where}", params)
        plan = cursor.fetchone()[0]
        return float(plan[0]["Plan"]["Plan Rows"])


def _kept(known: dict[tuple[str, ...], Any], key: tuple[str, ...], value: Any) -> Any:
    """``value`` stored under ``key``; a table of many scopes (a service's ad hoc filters)
    starts afresh at 1,000."""
    if len(known) >= 1000:
        known.clear()
    known[key] = value
    return value
