"""Dense search in SQL: which way a search runs (the HNSW walk, how wide, or exact ranking
of a tenant small enough to sort), and the SQL of each.

pgvector's HNSW index filters after the walk: a walk of ``W`` candidates keeps only the
scope's share of them (190 of 1,000 for a tenant holding 19% of the rows), and the nearest
``top_k`` of those are the result. A filtered walk is therefore wider than an unfiltered
one: ``ef_search / share`` wide (the scope gets about the ``ef_search`` candidates an
unfiltered walk has), and never less than FILTERED_WIDER times ``ef_search`` (at 1M rows a
tenant of 19% walked 518 wide reached recall@10 0.91-0.97, 1,000 wide 0.97-0.99: a scope's
nearest rows are the table's nearest ``top_k / share``, which a walk as wide as the
unfiltered one finds less surely). pgvector allows at most WIDEST. A tenant of at most
EXACT_SCOPE_ROWS rows is ranked exactly instead: its rows read through the metadata index,
a bounded top-``k`` sort by distance. Measured in docs/benchmarks.md.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

from ragloom.filters import Filters
from ragloom.tenancy import TENANT_KEY

#: A tenant of at most this many rows is ranked exactly (recall 1.0). At 1M rows even the
#: widest walk holds only 20-100 of a 2-10% tenant's rows (recall@10 0.93-0.98 on the
#: bench's graph); a bounded sort of 96,000 rows took 250-370 ms on the shared bench machine.
EXACT_SCOPE_ROWS = 100_000
#: A filtered walk is at least this many times ``ef_search`` wide (at most WIDEST).
FILTERED_WIDER = 10
#: pgvector's largest ``hnsw.ef_search``.
WIDEST = 1000
#: How long a scope's figures are kept (a count of a large tenant costs).
KEEP_SECONDS = 60.0


@dataclass(frozen=True)
class Route:
    """How one search runs: ranked exactly (``width`` 0), or an HNSW walk ``width`` wide."""

    exact: bool
    width: int


def walk_sql(chunks: str, where: str) -> str:
    """The nearest ``top_k`` rows ``where`` keeps, through the HNSW index (pgvector's
    iterative scan walks on until it has them). Parameters: query, *where's, query, top_k.
    Run it unprepared (psycopg's ``prepare=False``): a prepared statement is planned
    without its values after a few runs, and that generic plan, guessing the filter keeps
    few rows, sorted all 200,000 a filter kept instead of walking 1,000 wide (716 ms
    against 45 ms at the p50)."""
    return (f"SELECT id, text, metadata, embedding <=> %b FROM {chunks} WHERE {where} "
            f"ORDER BY embedding <=> %b LIMIT %s")


def exact_sql(chunks: str, where: str) -> str:
    """Every row ``where`` keeps, ranked by exact distance: ``+ 0`` keeps the planner off
    the HNSW index (which orders by ``embedding <=> query`` only), so the rows come through
    the metadata index into a bounded sort. Parameters: query, *where's, top_k."""
    return (f"SELECT id, text, metadata, (embedding <=> %b) + 0 AS distance FROM {chunks} "
            f"WHERE {where} ORDER BY distance LIMIT %s")


def filtered_width(ef_search: int, share: float) -> int:
    """A filtered walk's width: ``ef_search / share``, at least FILTERED_WIDER times
    ``ef_search``, at most WIDEST."""
    return min(WIDEST, max(FILTERED_WIDER * ef_search, math.ceil(ef_search / share)))


class Scopes:
    """What a search needs to know of a filter's scope, kept KEEP_SECONDS per scope: its
    size up to EXACT_SCOPE_ROWS + 1 (counted through the metadata index) and its share of
    the table (the planner's estimates: no rows are read)."""

    def __init__(self, chunks: str) -> None:
        self._chunks = chunks
        self._rows: dict[tuple[str, ...], tuple[float, int]] = {}
        self._shares: dict[tuple[str, ...], tuple[float, float]] = {}
        self._table: tuple[float, float] | None = None  # (when, the table's estimated rows)

    def route(self, cursor: Any, filters: Filters | None, where: str, params: list[Any],
              ef_search: int, top_k: int) -> Route:
        """How to search ``where``: a tenant's scope of at most EXACT_SCOPE_ROWS rows is
        ranked exactly; any other filter walks filtered_width wide; no filter, ``ef_search``
        wide (or ``top_k``, up to WIDEST: HNSW finds at most ``ef_search`` rows)."""
        width = max(ef_search, min(top_k, WIDEST))
        if not filters:
            return Route(False, width)
        if TENANT_KEY in filters and self.small(cursor, where, params):
            return Route(True, 0)
        return Route(False, max(width, filtered_width(ef_search, self.share(cursor, where, params))))

    def small(self, cursor: Any, where: str, params: list[Any]) -> bool:
        """Whether the scope is small enough to rank exactly."""
        key, now = (where, *map(str, params)), time.monotonic()
        known = self._rows.get(key)
        if known is None or now - known[0] > KEEP_SECONDS:
            cursor.execute(f"SELECT count(*) FROM (SELECT 1 FROM {self._chunks} WHERE {where} "
                           f"LIMIT {EXACT_SCOPE_ROWS + 1}) scope", params)
            known = _kept(self._rows, key, (now, int(cursor.fetchone()[0])))
        return known[1] <= EXACT_SCOPE_ROWS

    def share(self, cursor: Any, where: str, params: list[Any]) -> float:
        """The scope's share of the table (between 1e-6 and 1): the planner's estimate of
        its rows, at least what was counted, over its estimate of the table's."""
        key, now = (where, *map(str, params)), time.monotonic()
        known = self._shares.get(key)
        if known is None or now - known[0] > KEEP_SECONDS:
            scoped = self._estimate(cursor, f"WHERE {where}", params)
            counted = self._rows.get(key, (0.0, 0))[1]  # at least what was counted
            if self._table is None or now - self._table[0] > KEEP_SECONDS:
                self._table = (now, self._estimate(cursor, "", []))
            share = max(scoped, counted) / max(self._table[1], 1.0)
            known = _kept(self._shares, key, (now, min(max(share, 1e-6), 1.0)))
        return known[1]

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
