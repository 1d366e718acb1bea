"""The index state a Postgres store keeps in its database: BM25 postings scored in SQL
(equal to the local BM25), the manifest's transaction, the embedding cache, the lock."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

from ragloom.errors import IndexLockedError
from ragloom.filters import compile_filters
from ragloom.indexing.manifest import FileRecord
from ragloom.retrieval.sparse import SparseIndex
from ragloom.retrieval.tokenize import Tokenizer
from ragloom.stores.base import EmbeddingSpec
from ragloom.stores.postgres import PostgresSettings, Tables
from ragloom.stores.postgres.store import PostgresStore
from ragloom.stores.registry import PostgresBackend

DIM = 8
WORDS = ("rocket orbit launch pad fuel engine wing lift drag flow shock wave heat "
         "parse_config ConfigParser tokenizer banana").split()


@pytest.fixture
def open_store(postgres_server: Any, postgres_schema: str) -> Iterator[Callable[..., PostgresStore]]:
    opened: list[PostgresStore] = []

    def build(read_only: bool = False, **settings: Any) -> PostgresStore:
        store = PostgresStore(postgres_server.url, Tables(postgres_schema, "chunks"),
                              EmbeddingSpec("hash/test", DIM), PostgresSettings(**settings),
                              read_only=read_only)
        opened.append(store)
        return store

    yield build
    for store in opened:
        store.close()


def corpus(size: int, seed: int = 7) -> tuple[list[str], list[str], list[dict]]:
    rng = random.Random(seed)
    ids = [f"c{i:03d}" for i in range(size)]
    # "flow" in most chunks: a negative Okapi idf, floored as rank-bm25 does
    texts = [" ".join(["flow"] * (i % 3 != 0) + rng.choices(WORDS, k=rng.randint(3, 30)))
             for i in range(size)]
    metadatas = [{"path": f"{'src' if i % 2 else 'docs'}/f{i % 7}.py", "chunk_index": i,
                  "content_hash": f"h{i % 50}"} for i in range(size)]
    return ids, texts, metadatas


def filled(store: PostgresStore, size: int = 120) -> tuple[Any, SparseIndex]:
    ids, texts, metadatas = corpus(size)
    state = PostgresBackend.open_index_state(store, Tokenizer(), lambda text, meta: text, False)
    assert state is not None
    vectors = np.random.default_rng(0).normal(size=(size, DIM)).astype(np.float32)
    store.upsert(ids, vectors, texts, metadatas)
    state.sparse.add(ids, texts, metadatas)
    local = SparseIndex(None, Tokenizer())
    local.add(ids, texts, metadatas)
    return state, local


QUERIES = ["rocket launch", "flow", "flow shock wave flow", "banana tokenizer", "nothing here",
           "parse_config", "heat drag lift wing engine fuel"]


def test_sql_bm25_scores_equal_local_bm25(open_store) -> None:
    state, local = filled(open_store())
    for query in QUERIES:
        ours, theirs = state.sparse.search(query, 10), local.search(query, 10)
        assert [round(s, 9) for _, s in ours] == [round(s, 9) for _, s in theirs], query
        # equal scores may come in another order; the sets of ids per score agree
        assert sorted(ours, key=lambda h: (-round(h[1], 9), h[0])) == [
            (i, pytest.approx(s, abs=1e-9)) for i, s in sorted(theirs, key=lambda h: (-round(h[1], 9), h[0]))]


def test_sql_bm25_filters_and_feedback_equal_local(open_store) -> None:
    state, local = filled(open_store())
    conditions = compile_filters({"path": "src/*.py", "chunk_index": {"$lt": 80}})
    for query in QUERIES:
        ours = state.sparse.search(query, 5, conditions, feedback_docs=4)
        theirs = local.search(query, 5, conditions, feedback_docs=4)
        assert {i for i, _ in ours} <= {i for i, _ in local.search(query, 200, conditions)}
        assert [s for _, s in ours] == pytest.approx([s for _, s in theirs], abs=1e-9), query


def test_pruned_search_is_exact_and_skips_frequent_terms(open_store, monkeypatch) -> None:
    """A frequent term's postings are only probed once rarer terms found k chunks whose
    scores its best possible weight cannot beat; the top k stays the local BM25's, also
    after deletes (whose bounds only grow looser) and with filters."""
    from ragloom.retrieval import postgres_bm25

    monkeypatch.setattr(postgres_bm25, "_SCAN_BELOW", 0)  # prune even this small corpus
    rng = random.Random(3)
    vocabulary = [f"w{i}" for i in range(300)]
    ranks = [1 / (i + 1) for i in range(300)]
    size = 1500
    ids = [f"d{i:04d}" for i in range(size)]
    texts = [" ".join(rng.choices(vocabulary, ranks, k=rng.randint(2, 40))) for _ in ids]
    metadatas = [{"path": f"p{i % 4}.py", "chunk_index": i} for i in range(size)]
    store = open_store()
    state = PostgresBackend.open_index_state(store, Tokenizer(), lambda text, meta: text, False)
    store.upsert(ids, np.random.default_rng(0).normal(size=(size, DIM)).astype(np.float32),
                 texts, metadatas)
    state.sparse.add(ids, texts, metadatas)
    local = SparseIndex(None, Tokenizer())
    local.add(ids, texts, metadatas)
    queries = ["w0 w150", "w1 w2 w200", "w0 w0 w77 w3", "w250 w5", "w0 w1", "w120 w121 w0"]
    conditions = compile_filters({"path": {"$in": ["p1.py", "p2.py"]}})
    pruned = 0
    for _ in range(2):  # before and after deletes
        for query in queries:
            for k, where in ((5, None), (3, conditions)):
                ours, theirs = state.sparse.search(query, k, where), local.search(query, k, where)
                # the same scores; a chunk tied (up to float summation order) with the k-th
                # may stand in for another, but every chunk has its local score
                assert [s for _, s in ours] == pytest.approx([s for _, s in theirs], abs=1e-9)
                every = dict(local.search(query, size, where))
                assert all(score == pytest.approx(every[i], abs=1e-9) for i, score in ours), query
                pruned += len(state.sparse.last_essential) < len(set(Tokenizer()(query)))
        doomed = ids[::5]
        store.delete(doomed)
        local.remove(doomed)
    assert pruned >= 8  # most searches left the frequent w0/w1/w2 postings unread
    monkeypatch.undo()  # so few postings: one scan, every term read
    state.sparse.search("w0 w150", 5)
    assert len(state.sparse.last_essential) == len(set(Tokenizer()("w0 w150")))


def test_deleting_chunks_deletes_their_postings(open_store) -> None:
    store = open_store()
    state, local = filled(store)
    doomed = [f"c{i:03d}" for i in range(0, 120, 3)]
    store.delete(doomed)
    local.remove(doomed)
    assert sorted(state.sparse.ids()) == sorted(local.ids())
    for query in QUERIES:
        assert [s for _, s in state.sparse.search(query, 8)] == pytest.approx(
            [s for _, s in local.search(query, 8)], abs=1e-9)


def test_lookups(open_store) -> None:
    state, _ = filled(open_store())
    assert [i for i, _ in state.sparse.chunks_with("content_hash", ["h3"])] == ["c003", "c053", "c103"]
    assert [i for i, _ in state.sparse.chunks_with("content_hash", ["h3", "h4", "nope"])] == [
        "c003", "c004", "c053", "c054", "c103", "c104"]
    assert state.sparse.chunks_with("content_hash", []) == []
    assert [i for i, _ in state.sparse.chunks_with("path", ["docs/f3.py", "src/f1.py"])] == [
        f"c{i:03d}" for i in range(120) if i % 14 in (10, 1)]
    assert state.sparse.distinct_values("path")[:2] == ["docs/f0.py", "docs/f1.py"]


def test_a_window_is_one_transaction(open_store, postgres_server, postgres_schema) -> None:
    store = open_store()
    state = PostgresBackend.open_index_state(store, Tokenizer(), lambda text, meta: text, False)
    reader = open_store(read_only=True)
    state.manifest.begin({"a.py": ["x"]})
    store.upsert(["x"], np.ones((1, DIM), dtype=np.float32), ["rocket"], [{"path": "a.py"}])
    state.sparse.add(["x"], ["rocket"], [{"path": "a.py"}])
    assert reader.count() == 0  # nothing is visible before the manifest commits the window
    state.manifest.write([FileRecord("a.py", 6, 1, "ff", ("x",), 1.0)])
    assert reader.count() == 1 and state.manifest.get("a.py").chunk_ids == ("x",)
    assert state.manifest.pending() == {}


def test_a_failed_window_leaves_the_old_version(open_store) -> None:
    store = open_store()
    state = PostgresBackend.open_index_state(store, Tokenizer(), lambda text, meta: text, False)
    state.manifest.begin({"a.py": ["x"]})
    store.upsert(["x"], np.ones((1, DIM), dtype=np.float32), ["rocket"], [{"path": "a.py"}])
    with pytest.raises(ValueError):
        store.upsert(["y"], np.full((1, DIM), np.nan, dtype=np.float32), ["t"], [{}])
    store.writer.rollback()  # what the indexer's error path leaves: no commit
    assert store.count() == 0 and state.manifest.get("a.py") is None


def test_cache_is_shared_between_writers(open_store) -> None:
    state = PostgresBackend.open_index_state(open_store(), Tokenizer(), lambda text, meta: text, False)
    state.cache.put_many("hash/test:document", {"h1": np.arange(DIM, dtype=np.float32)})
    state.cache.put_many("hash/test:document", {"h1": np.zeros(DIM, dtype=np.float32)})
    got = state.cache.get_many("hash/test:document", ["h1", "h2"], DIM)
    assert list(got) == ["h1"] and got["h1"].tolist() == list(range(DIM))
    assert state.cache.get_many("other", ["h1"], DIM) == {}
    state.cache.close()


def test_second_writer_is_refused_naming_the_holder(open_store) -> None:
    first = open_store()
    with pytest.raises(IndexLockedError, match=r"being written by ragloom writer host \S+ pid \d+"):
        open_store()
    with pytest.raises(IndexLockedError, match=r"waited 0.2 s"):
        open_store(wait_for_writer_seconds=0.2)
    assert open_store(read_only=True).count() == 0  # readers need no lock
    first.close()
    open_store().close()  # the lock went with the first writer's session
