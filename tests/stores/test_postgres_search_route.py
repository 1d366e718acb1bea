"""How a Postgres search runs (``stores.postgres.search``): exact ranking for a small
tenant, otherwise the HNSW walk, and how wide; decided on a real server, by counts."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from ragloom.stores.base import EmbeddingSpec
from ragloom.stores.postgres.search import FILTERED_WIDER, WIDEST, Route, filtered_width

DIM = 8
SPEC = EmbeddingSpec("hash/test", DIM)


@pytest.mark.parametrize(("ef_search", "share", "width"), [
    (100, 1.0, 1000),      # one tenant holding every row: 10 x ef_search, not ef_search
    (40, 1.0, 400),
    (40, 0.5, 400),        # ef_search / share = 80: the floor
    (20, 0.125, 200),      # 160: the floor
    (10, 0.0625, 160),     # past the floor of 100: ef_search / share
    (50, 0.0625, 800),
    (40, 0.03125, 1000),   # 1,280: pgvector's cap
    (100, 1e-6, 1000),
    (200, 1.0, 1000),      # a floor above the cap stays at the cap
])
def test_a_filtered_walk_is_ef_search_over_its_share_and_never_narrower_than_ten_times_ef_search(
        ef_search: int, share: float, width: int) -> None:
    assert FILTERED_WIDER == 10 and WIDEST == 1000
    assert filtered_width(ef_search, share) == width


class Counting:
    """A cursor that records the statements run through it."""

    def __init__(self, cursor: Any) -> None:
        self.cursor, self.statements = cursor, []

    def execute(self, sql: str, params: Any = (), **options: Any) -> None:
        self.statements.append(sql.split()[0] + (" count" if "count(*)" in sql else ""))
        self.cursor.execute(sql, params, **options)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.cursor, name)


def test_postgres_routes_small_tenants_to_exact_ranking_and_widens_every_other_filtered_walk(
        postgres_server: Any, postgres_schema: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A tenant of at most EXACT_SCOPE_ROWS rows is ranked exactly (one more row and it
    walks); a tenant holding every row, and any other filter however narrow, walks
    ``filtered_width`` wide (never exactly: a filter's scope is not counted); no filter,
    ``ef_search`` wide (``top_k`` when larger, up to 1,000). A scope is counted and
    estimated once, then kept."""
    from ragloom.stores.postgres import PostgresSettings, Tables, search
    from ragloom.stores.postgres.store import PostgresStore
    from ragloom.stores.postgres.where import where_clause
    from ragloom.stores.tenant import TenantStore

    monkeypatch.setattr(search, "EXACT_SCOPE_ROWS", 100)
    store = PostgresStore(postgres_server.url, Tables(postgres_schema, "chunks"), SPEC,
                          PostgresSettings(schema=postgres_schema, ef_search=40))
    rng = np.random.default_rng(5)
    try:
        for tenant, count in (("edge", 100), ("over", 101), ("rest", 399)):
            TenantStore(store, tenant).upsert(
                [f"c{i}" for i in range(count)], rng.normal(size=(count, DIM)).astype(np.float32),
                [""] * count, [{"n": i} for i in range(count)])
        store.writer.execute("analyze", f"ANALYZE {store.tables.chunks}")
        scopes = search.Scopes(store.tables.chunks)

        def route(filters: Any, top_k: int = 10) -> tuple[Route, list[str]]:
            where, params = where_clause(filters)
            with store.reader.cursor("test") as cursor:
                counting = Counting(cursor)
                return scopes.route(counting, filters, where, params, 40, top_k), counting.statements

        assert route({"tenant": "edge"}) == (Route(True, 0), ["SELECT count"])
        # "over" holds 101 of 600 rows: a share of at least 1/6, so ef_search / share is
        # under the floor of 400; it is counted (101 rows seen, one too many), then estimated
        assert route({"tenant": "over"}) == (Route(False, 400), ["SELECT count", "EXPLAIN", "EXPLAIN"])
        assert route({"tenant": "over"}) == (Route(False, 400), [])  # kept
        assert route({"tenant": "over", "n": {"$lt": 1000}}) == (
            Route(False, 400), ["SELECT count", "EXPLAIN"])  # the table's estimate is kept
        # one row of 600 by a filter that names no tenant: never counted, the widest walk
        assert route({"n": 7}) == (Route(False, 1000), ["EXPLAIN"])
        assert route(None) == (Route(False, 40), [])
        assert route(None, top_k=60) == (Route(False, 60), [])
        assert route(None, top_k=5000) == (Route(False, 1000), [])
    finally:
        store.close()


def test_postgres_a_tenant_holding_every_row_walks_ten_times_ef_search(
        postgres_server: Any, postgres_schema: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A table with one tenant: its share is 1, and its walk 10 x ``ef_search`` wide (the
    unfiltered walk of the same table is ``ef_search`` wide); the search through the store
    sets that width and returns ``top_k`` rows in order."""
    from ragloom.stores.postgres import PostgresSettings, Tables, search
    from ragloom.stores.postgres.store import PostgresStore
    from ragloom.stores.tenant import TenantStore

    monkeypatch.setattr(search, "EXACT_SCOPE_ROWS", 50)
    store = PostgresStore(postgres_server.url, Tables(postgres_schema, "chunks"), SPEC,
                          PostgresSettings(schema=postgres_schema, ef_search=30))
    try:
        only = TenantStore(store, "only")
        vectors = np.random.default_rng(6).normal(size=(300, DIM)).astype(np.float32)
        only.upsert([f"c{i}" for i in range(300)], vectors, [""] * 300, [{}] * 300)
        store.writer.execute("analyze", f"ANALYZE {store.tables.chunks}")
        hits = only.query(vectors[0], 5)
        assert len(hits) == 5 and hits[0].id == "c0"
        assert [h.distance for h in hits] == sorted(h.distance for h in hits)
        assert store.reader.session["hnsw.ef_search"] == "300"
        store.query(vectors[0], 5)
        assert store.reader.session["hnsw.ef_search"] == "30"
    finally:
        store.close()


def test_postgres_the_walk_is_never_a_prepared_statement(
        postgres_server: Any, postgres_schema: str) -> None:
    """psycopg prepares a statement run 5 times, and Postgres then plans it without its
    values; such a generic plan sorted every row a filter kept instead of walking. The
    walk is planned with each search's values: after 12 searches, none is prepared."""
    from ragloom.stores.postgres import PostgresSettings, Tables
    from ragloom.stores.postgres.store import PostgresStore

    store = PostgresStore(postgres_server.url, Tables(postgres_schema, "chunks"), SPEC,
                          PostgresSettings(schema=postgres_schema))
    try:
        vectors = np.random.default_rng(7).normal(size=(50, DIM)).astype(np.float32)
        store.upsert([f"c{i}" for i in range(50)], vectors, [""] * 50, [{"n": i % 2} for i in range(50)])
        for vector in vectors[:12]:
            assert len(store.query(vector, 3, {"n": 1})) == 3 and len(store.query(vector, 3)) == 3
        prepared = store.reader.execute("test", "SELECT statement FROM pg_prepared_statements")
        assert not [sql for (sql,) in prepared if "ORDER BY embedding <=>" in sql], prepared
    finally:
        store.close()
