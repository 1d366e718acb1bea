"""BM25 through the pg_textsearch extension (``sparse = "pg_textsearch"``): ragloom's tokens,
scored by the extension's index with Lucene's idf and the local k1 and b, filters applied,
deletes followed, an index built with ``sparse = "sql"`` switched over."""

from __future__ import annotations

import logging
import math
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_postgres_state import corpus, open_store  # noqa: F401 - a fixture

from helpers import hash_config, write
from ragloom import RAGEngine
from ragloom.errors import StoreError
from ragloom.filters import compile_filters
from ragloom.retrieval.postgres_bm25 import K1, B
from ragloom.retrieval.postgres_text_search import hex_words
from ragloom.retrieval.tokenize import Tokenizer
from ragloom.stores.base import EmbeddingSpec
from ragloom.stores.postgres import PostgresSettings, Tables
from ragloom.stores.postgres.store import PostgresStore
from ragloom.stores.registry import PostgresBackend

DIM = 8
#: Distinct tokens each (the extension's handling of a repeated query word is its own).
QUERIES = ["rocket launch", "flow shock wave", "parse_config banana", "heat drag lift wing",
           "nothing here"]


@pytest.fixture
def text_store(open_store, postgres_server: Any) -> Callable[..., PostgresStore]:  # noqa: F811
    """``open_store`` (test_postgres_state) with ``sparse = "pg_textsearch"`` by default."""
    if not postgres_server.text_search:
        pytest.skip("the test server has no pg_textsearch in shared_preload_libraries")
    return lambda read_only=False, sparse="pg_textsearch": open_store(read_only, sparse=sparse)


def state_of(store: PostgresStore, read_only: bool = False) -> Any:
    state = PostgresBackend.open_index_state(store, Tokenizer(), lambda text, meta: text, read_only)
    assert state is not None
    return state


def fill(store: PostgresStore, size: int = 120) -> Any:
    ids, texts, metadatas = corpus(size)
    state = state_of(store)
    state.sparse.sync_with(store)
    store.upsert(ids, np.random.default_rng(0).normal(size=(size, DIM)), texts, metadatas)
    state.sparse.add(ids, texts, metadatas)
    return state


def lucene_bm25(texts: dict[str, str], query: str) -> list[tuple[str, float]]:
    """Okapi BM25 with k1 = 1.5, b = 0.75 and idf ln(1 + (N - df + 0.5) / (df + 0.5)) over
    ragloom's tokens: the chunks holding a query token, best first."""
    tokens = {doc: Counter(Tokenizer()(text)) for doc, text in texts.items()}
    size = len(tokens)
    average = sum(sum(counts.values()) for counts in tokens.values()) / size
    scores: dict[str, float] = {}
    for term in dict.fromkeys(Tokenizer()(query)):
        df = sum(term in counts for counts in tokens.values())
        idf = math.log(1 + (size - df + 0.5) / (df + 0.5))
        for doc, counts in tokens.items():
            if counts[term]:
                length = sum(counts.values())
                scores[doc] = scores.get(doc, 0.0) + idf * counts[term] * (K1 + 1) / (
                    counts[term] + K1 * (1 - B + B * length / average))
    return sorted(scores.items(), key=lambda item: -item[1])


def test_hex_words_keep_every_token_whole_and_distinct() -> None:
    assert hex_words(["class_count_", "é", "1e5"]) == "x636c6173735f636f756e745f xc3a9 x316535"
    assert hex_words([]) == ""


def test_scores_are_lucene_bm25_over_ragloom_tokens(text_store) -> None:
    """The extension keeps a chunk's length coarsely (as Lucene's norms do), so a long
    chunk's score is within 2% of the formula's; the ranking follows the formula."""
    store = text_store()
    fill(store)
    ids, texts, _ = corpus(120)
    search = state_of(store, read_only=True).sparse
    assert search.text_search
    for query in QUERIES:
        reference = dict(lucene_bm25(dict(zip(ids, texts)), query))
        found = search.search(query, 10)
        assert len(found) == min(10, len(reference)), query
        for doc, score in found:
            assert score == pytest.approx(reference[doc], rel=2e-2), (query, doc)
        ranked = [reference[doc] for doc, _ in found]
        assert all(a >= b * 0.98 for a, b in zip(ranked, ranked[1:])), query
        if found:  # no chunk clearly better than the last one found is missing
            missing = {doc for doc, score in reference.items() if score > ranked[-1] * 1.02}
            assert missing <= {doc for doc, _ in found}, query


def test_filters_and_deletes_apply(text_store) -> None:
    store = text_store()
    state = fill(store)
    conditions = compile_filters({"path": {"$glob": "src/**"}})
    everything = state.sparse.search("flow shock wave", 200)
    in_src = [doc for doc, _ in everything if int(doc[1:]) % 2 == 1]
    found = state.sparse.search("flow shock wave", 15, conditions)
    assert len(found) == 15 and {doc for doc, _ in found} <= set(in_src)
    assert [score for _, score in found] == sorted((score for _, score in found), reverse=True)
    # fewer matches than k in the filtered chunks: exactly those, none that lacks the word
    ids, texts, metadatas = corpus(120)
    holders = {doc for doc, text, meta in zip(ids, texts, metadatas)
               if meta["path"] == "docs/f3.py" and "banana" in text.split()}
    found_in_file = state.sparse.search("banana", 100, compile_filters({"path": "docs/f3.py"}))
    assert 0 < len(holders) < 100
    assert {doc for doc, _ in found_in_file} == holders and all(s > 0 for _, s in found_in_file)
    store.delete([doc for doc, _ in found[:5]])
    after = {doc for doc, _ in state.sparse.search("flow shock wave", 200)}
    assert not after & {doc for doc, _ in found[:5]}
    assert len(after) == len(everything) - 5


def test_an_index_built_for_sql_switches_over(text_store, caplog) -> None:
    sql_store = text_store(sparse="sql")
    fill(sql_store)
    sql_store.close()
    reader = text_store(read_only=True)
    with caplog.at_level(logging.WARNING, logger="ragloom"):
        reading = state_of(reader, read_only=True).sparse
        assert reading.sync_with(reader) is False
    assert not reading.text_search and "no pg_textsearch table yet" in caplog.text
    assert reading.search("rocket launch", 3)  # on the postings meanwhile
    writer = text_store()
    assert state_of(writer).sparse.sync_with(writer) is True  # rows written for every chunk
    ids, texts, _ = corpus(120)
    switched = state_of(text_store(read_only=True), read_only=True).sparse
    switched.sync_with(None)
    assert switched.text_search
    reference = dict(lucene_bm25(dict(zip(ids, texts)), "heat drag lift wing"))
    found = switched.search("heat drag lift wing", 5)
    assert [score for _, score in found] == pytest.approx([reference[doc] for doc, _ in found],
                                                          rel=2e-2)


def test_hybrid_search_through_the_engine(postgres_server, postgres_schema, tmp_path: Path) -> None:
    if not postgres_server.text_search:
        pytest.skip("the test server has no pg_textsearch in shared_preload_libraries")
    write(tmp_path, "docs/launch.md", "# Launch\nRockets launch satellites into orbit.\n")
    write(tmp_path, "src/fruit.py", "def peel(banana):\n    return banana.skin\n")
    config = hash_config(vector_store={"provider": "postgres", "url": postgres_server.url,
                                       "postgres": {"schema": postgres_schema,
                                                    "sparse": "pg_textsearch"}},
                         relevance_gate=0.0)
    with RAGEngine(config, tmp_path) as engine:
        engine.index_directory()
        response = engine.search_detailed("peel banana", top_k=2, mode="hybrid")
        assert response.results[0].path == "src/fruit.py"
        assert response.results[0].retrievers["sparse"].rank == 1
        assert response.candidates["sparse"] == 1
        assert [r.path for r in engine.search("banana", mode="sparse")] == ["src/fruit.py"]


def test_create_false_refuses_to_add_the_text_table(text_store, postgres_server,
                                                    postgres_schema) -> None:
    built = text_store(sparse="sql")
    fill(built)  # the index exists, built for SQL BM25
    built.close()
    locked = PostgresStore(postgres_server.url, Tables(postgres_schema, "chunks"),
                           EmbeddingSpec("hash/test", DIM),
                           PostgresSettings(sparse="pg_textsearch", create=False))
    try:
        with pytest.raises(StoreError, match=r"has no pg_textsearch table \(.*_tokens\"\), and "
                                             r"\[rag.vector_store.postgres\] create = false"):
            state_of(locked).sparse.sync_with(locked)
    finally:
        locked.close()


def test_a_sql_writer_leaves_no_stale_text_rows(text_store) -> None:
    """A writer configured with "sql" on an index that has the text table drops the rows of
    the chunks it rewrites; the next pg_textsearch writer writes them again."""
    first = text_store()
    fill(first)
    first.close()
    ids, _, metadatas = corpus(120)
    sql_store = text_store(sparse="sql")
    sql_state = state_of(sql_store)
    sql_state.sparse.sync_with(sql_store)
    sql_store.upsert([ids[0]], np.ones((1, DIM)), ["banana split sundae"], [metadatas[0]])
    sql_state.sparse.add([ids[0]], ["banana split sundae"], [metadatas[0]])
    sql_store.close()
    writer = text_store()
    assert state_of(writer).sparse.sync_with(writer) is True  # the rewritten chunk's row again
    found = state_of(writer, read_only=True).sparse.search("sundae", 5)
    assert [doc for doc, _ in found] == [ids[0]]
