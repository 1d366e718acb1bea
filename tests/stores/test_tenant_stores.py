"""The tenant view (``ragloom.stores.tenant``) on every store, below the engine: one
tenant never sees, counts, fetches, deletes or overwrites another's chunks, with any
filter and any ``top_k``; a tenant holding a sliver of a large table still gets ``top_k``
results (the scope is applied inside the store, before ranking); and a property test over
random interleavings of two tenants' writes and searches."""

from __future__ import annotations

import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragloom.stores.base import EmbeddingSpec, VectorStore
from ragloom.stores.memory import MemoryVectorStore
from ragloom.stores.tenant import TenantStore
from ragloom.stores.turboquant import TurboQuantStore

DIM = 16
SPEC = EmbeddingSpec("hash/test", DIM)
FILTERS: list[dict[str, Any] | None] = [
    None, {"group": "red"}, {"group": {"$ne": "red"}}, {"n": {"$gte": 0}},
    {"$or": [{"group": "red"}, {"group": "blue"}]}, {"group": {"$in": ["red", "blue", "green"]}},
]


def _rows(count: int, seed: int, groups: tuple[str, ...] = ("red", "blue")) -> tuple:
    rng = np.random.default_rng(seed)
    vectors = rng.normal(size=(count, DIM)).astype(np.float32)
    ids = [f"c{i}" for i in range(count)]
    texts = [f"text {seed} {i}" for i in range(count)]
    metadatas = [{"group": groups[i % len(groups)], "n": i} for i in range(count)]
    return ids, vectors, texts, metadatas


@pytest.fixture(params=["memory", "turboquant", "chroma", "chroma-server", "postgres"])
def shared(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[VectorStore]:
    kind = request.param
    store: Any
    if kind == "memory":
        store = MemoryVectorStore()
    elif kind == "turboquant":
        store = TurboQuantStore(tmp_path / "tq", SPEC)
    elif kind.startswith("chroma"):
        pytest.importorskip("chromadb")
        from ragloom.stores.chroma import ChromaVectorStore

        name = f"t-{uuid.uuid4().hex[:8]}"
        store = (ChromaVectorStore.open_local(tmp_path / "db", name, SPEC) if kind == "chroma" else
                 ChromaVectorStore.open_remote(request.getfixturevalue("chroma_server").url, name, SPEC))
    else:
        from ragloom.stores.postgres import Tables
        from ragloom.stores.postgres.store import PostgresStore

        server, schema = (request.getfixturevalue("postgres_server"),
                          request.getfixturevalue("postgres_schema"))
        store = PostgresStore(server.url, Tables(schema, "chunks"), SPEC)
    yield store
    store.close()


def test_tenants_are_isolated_inside_every_store(shared: VectorStore) -> None:
    big, small = TenantStore(shared, "big"), TenantStore(shared, "small")
    big.upsert(*_rows(1500, seed=1))
    small.upsert(*_rows(3, seed=2))  # the same ids c0..c2 as three of big's
    shared.persist()
    assert (big.count(), small.count(), shared.count()) == (1500, 3, 1503)
    assert sorted(small.ids()) == ["c0", "c1", "c2"]
    assert small.text_bytes() == len("text 2 0") * 3
    assert [c.text for c in small.get(["c0", "c2", "c7"])] == ["text 2 0", "text 2 2"]
    with pytest.raises(KeyError):
        small.get_vectors(["c7"])  # big's id: not small's to read
    probes = np.random.default_rng(3).normal(size=(4, DIM)).astype(np.float32)
    for filters in FILTERS:
        expected = {"c0": "red", "c1": "blue", "c2": "red"}
        matching = [i for i, group in expected.items() if _holds(filters, group)]
        for top_k in (1, 2, 3, 10, 100):
            for probe in probes:
                hits = small.query(probe, top_k, filters)
                assert len(hits) == min(top_k, len(matching)), (filters, top_k)
                assert {h.id for h in hits} <= set(matching)
                assert {h.metadata["tenant"] for h in hits} == ({"small"} if hits else set())
                assert all(h.text.startswith("text 2 ") for h in hits)
    small.delete(["c0", "c7"])  # c7 is only big's: nothing of big's goes
    small.upsert(["c1"], probes[:1], ["small's new c1"], [{"group": "blue", "n": 1}])
    shared.persist()
    assert (big.count(), small.count()) == (1500, 2)
    assert [c.text for c in big.get(["c0", "c1", "c7"])] == ["text 1 0", "text 1 1", "text 1 7"]
    small.reset()
    assert (big.count(), small.count()) == (1500, 0)
    assert small.query(probes[0], 10) == []


def _holds(filters: dict[str, Any] | None, group: str) -> bool:
    """Whether a chunk of ``group`` (``n`` >= 0) passes one of FILTERS."""
    if not filters or "n" in filters:
        return True
    if "$or" in filters:
        return group in ("red", "blue")
    condition = filters["group"]
    if isinstance(condition, str):
        return group == condition
    if "$ne" in condition:
        return group != condition["$ne"]
    return group in condition["$in"]


_OPS = st.lists(st.one_of(
    st.tuples(st.just("upsert"), st.sampled_from(["a", "b"]), st.lists(st.integers(0, 5), min_size=1,
                                                                        max_size=4, unique=True)),
    st.tuples(st.just("delete"), st.sampled_from(["a", "b"]), st.lists(st.integers(0, 5), max_size=3)),
    st.tuples(st.just("search"), st.sampled_from(["a", "b"]), st.integers(1, 8)),
), max_size=14)


@pytest.mark.parametrize("kind", ["memory", "turboquant"])
@settings(max_examples=20, deadline=None)
@given(ops=_OPS)
def test_random_interleavings_of_two_tenants(kind: str, ops: list[tuple]) -> None:
    """Whatever the order of two tenants' writes and searches, each tenant's view equals a
    store holding only its own writes."""
    with tempfile.TemporaryDirectory() as folder:
        shared = MemoryVectorStore() if kind == "memory" else TurboQuantStore(Path(folder) / "tq", SPEC)
        views = {t: TenantStore(shared, t) for t in ("a", "b")}
        model: dict[str, dict[str, str]] = {"a": {}, "b": {}}
        rng = np.random.default_rng(0)
        for step, (op, tenant, arg) in enumerate(ops):
            view, own = views[tenant], model[tenant]
            if op == "upsert":
                ids = [f"x{i}" for i in arg]
                texts = [f"{tenant} {step} {i}" for i in ids]
                view.upsert(ids, rng.normal(size=(len(ids), DIM)), texts, [{"k": 1}] * len(ids))
                own.update(zip(ids, texts))
            elif op == "delete":
                view.delete([f"x{i}" for i in arg])
                for i in arg:
                    own.pop(f"x{i}", None)
            else:
                hits = view.query(rng.normal(size=DIM), arg, {"k": 1})
                assert len(hits) == min(arg, len(own))
                assert {(h.id, h.text) for h in hits} <= set(own.items())
            for name, other in views.items():
                assert other.count() == len(model[name])
                assert {(c.id, c.text) for c in other.get(other.ids())} == set(model[name].items())
        shared.close()


def test_a_tenant_name_check_names_the_value() -> None:
    with pytest.raises(ValueError, match="tenant 'a b' is not a tenant name"):
        TenantStore(MemoryVectorStore(), "a b")




def test_postgres_ranks_small_tenants_and_narrow_filters_exactly(
        postgres_server: Any, postgres_schema: str) -> None:
    """HNSW filters after the graph walk, and pgvector's iterative scan stops after
    ``hnsw.max_scan_tuples``: 3 rows among 1,500 then get fewer than ``top_k`` from the
    index. A small tenant is ranked exactly from the start; any other filter the walk
    leaves short is ranked exactly after it."""
    from ragloom.stores.postgres import Tables
    from ragloom.stores.postgres.store import PostgresStore

    store = PostgresStore(postgres_server.url, Tables(postgres_schema, "chunks"), SPEC)
    try:
        big, small = TenantStore(store, "big"), TenantStore(store, "small")
        big.upsert(*_rows(1500, seed=1))
        ids, vectors, texts, _ = _rows(3, seed=2)
        small.upsert(ids, vectors, texts, [{"group": "rare"}] * 3)
        big.upsert([f"r{i}" for i in range(3)], vectors, texts, [{"group": "rare"}] * 3)
        for name, value in (("hnsw.max_scan_tuples", "1"), ("enable_seqscan", "off"),
                            ("enable_bitmapscan", "off")):  # the planner takes the HNSW walk
            store.reader.execute("setup", "SELECT set_config(%s, %s, false)", (name, value))
        probe = np.random.default_rng(3).normal(size=DIM).astype(np.float32)
        order = np.argsort(-(vectors @ probe))
        for scope, rows in (('{"tenant": "small"}', 3), ('{"group": "rare"}', 6)):
            walked = store.reader.execute(
                "walk", f"SELECT id FROM {store.tables.chunks} WHERE metadata @> %s::jsonb "
                "ORDER BY embedding <=> %s::vector LIMIT 10", (scope, probe.tolist()))
            assert len(walked) < rows, scope  # the index alone leaves the scope short
        assert [h.id for h in small.query(probe, 10)] == [f"c{i}" for i in order]
        rare = store.query(probe, 10, {"group": "rare"})  # the same three vectors twice
        assert sorted(h.id.partition("::")[2] for h in rare) == ["c0", "c1", "c2", "r0", "r1", "r2"]
        assert [h.id[-1] for h in rare] == [str(i) for i in order for _ in (0, 1)]
    finally:
        store.close()


def test_postgres_a_filtered_walk_is_widened_by_its_share_of_the_table(
        postgres_server: Any, postgres_schema: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A walk of ``ef_search`` candidates keeps only a scope's share of them: a filtered
    search (a tenant past the exact-ranking size, or any other filter) walks ``ef_search /
    share`` wide (the planner's estimate of the share), at least 10 x ``ef_search`` and at
    most pgvector's 1,000, an unfiltered one ``ef_search`` wide; a small tenant is ranked
    exactly, without a walk (the exact decisions: test_postgres_search_route.py)."""
    from ragloom.stores.postgres import PostgresSettings, Tables, search
    from ragloom.stores.postgres.store import PostgresStore

    store = PostgresStore(postgres_server.url, Tables(postgres_schema, "chunks"), SPEC,
                          PostgresSettings(schema=postgres_schema, ef_search=40))
    try:
        big, small = TenantStore(store, "big"), TenantStore(store, "small")
        big.upsert(*_rows(600, seed=1))  # half "red", half "blue"
        small.upsert(*_rows(200, seed=2))
        store.writer.execute("analyze", f"ANALYZE {store.tables.chunks}")
        widths: list[int] = []  # each hnsw.ef_search set
        walks: list[str] = []  # which query each search ran: the walk or the exact ranking
        cursor_of = store.reader.cursor

        class Recording:
            def __init__(self, cursor: Any) -> None:
                self.cursor = cursor

            def execute(self, sql: str, params: Any = (), **options: Any) -> None:
                if "hnsw.ef_search" in sql:
                    widths.append(int(params[0]))
                elif "ORDER BY" in sql:
                    walks.append("exact" if "+ 0" in sql else "walk")
                self.cursor.execute(sql, params, **options)

            def __getattr__(self, name: str) -> Any:
                return getattr(self.cursor, name)

        @contextmanager
        def recording(what: str) -> Iterator[Any]:
            with cursor_of(what) as cursor:
                yield Recording(cursor)

        monkeypatch.setattr(store.reader, "cursor", recording)
        probe = np.random.default_rng(3).normal(size=DIM).astype(np.float32)
        assert len(small.query(probe, 3)) == 3 and (walks, widths) == (["exact"], [])
        monkeypatch.setattr(search, "EXACT_SCOPE_ROWS", 10)  # from here on, tenants walk
        for view, filters in ((big, None), (big, {"group": "red"}), (store, None)):
            hits = view.query(probe, 3, filters)
            distances = [hit.distance for hit in hits]
            assert distances == sorted(distances) and len(hits) == 3
            assert walks[-1] == "walk"
        # big holds 3/4 of the rows, its red ones 3/8: widened, the narrower scope no less
        assert 400 <= widths[0] <= widths[-2] <= 1000, widths  # at least 10 x ef_search
        assert widths[-1] == 40  # unfiltered: ef_search
        assert len(store.query(probe, 3, {"n": 7})) == 2 and widths[-1] == 1000  # 2 of 800
        assert walks[-2:] == ["walk", "exact"]  # the walk found fewer than top_k: exact
    finally:
        store.close()
