"""Results are built in one place: retrievers hand back their hits (with the rows they read),
the rows of ids only BM25 found are read once, and each result carries every retriever's
rank and the ranking's value; no stage changes a row a retriever handed back."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ragloom.retrieval.candidates import Rows, build_results, rows_of
from ragloom.retrieval.rerankers import rerank
from ragloom.retrieval.retrievers import Hit
from ragloom.stores.memory import MemoryVectorStore
from ragloom.types import Chunk, RetrieverHit, SearchResult


def unit(*values: float) -> np.ndarray:
    vector = np.array(values, dtype=np.float32)
    return vector / np.linalg.norm(vector)


def store_of(rows: dict[str, np.ndarray]) -> MemoryVectorStore:
    store = MemoryVectorStore()
    store.upsert(list(rows), np.stack(list(rows.values())), [f"text {i}" for i in rows],
                 [{"path": f"{i}.md"} for i in rows])
    return store


class Waiting:
    """Chunks BM25 holds whose vectors are not stored yet."""

    def __init__(self, chunks: Sequence[Chunk]) -> None:
        self.chunks = {chunk.id: chunk for chunk in chunks}
        self.asked: list[list[str]] = []

    def get(self, ids: Sequence[str]) -> list[Chunk]:
        self.asked.append(list(ids))
        return [self.chunks[i] for i in ids if i in self.chunks]


def test_rows_come_from_the_hits_then_the_store_then_the_waiting_chunks() -> None:
    store = store_of({"a": unit(1, 0), "b": unit(0, 1)})
    read = SearchResult("a", "as the store read it", {"path": "a.md"}, 0.9, 0.1)
    hits = {"dense": [Hit("a", 0.9, read)], "sparse": [Hit("b", 3.0), Hit("w", 2.0), Hit("gone", 1.0)]}
    waiting = Waiting([Chunk("w", "waiting text", {"path": "w.md"})])
    rows = rows_of(hits, ["a", "b", "w", "gone"], store, waiting, unit(1, 1))
    assert rows.by_id["a"] is read  # read once, by the dense retriever
    b, w = rows.by_id["b"], rows.by_id["w"]
    assert (b.text, round(b.score, 6)) == ("text b", round(float(unit(1, 1)[1]), 6))
    assert (w.text, w.score, w.distance) == ("waiting text", 0.0, 1.0)
    assert waiting.asked == [["w", "gone"]] and "gone" not in rows.by_id
    assert rows.unembedded == frozenset({"w"})


def test_every_hit_of_a_retriever_is_read_once_and_none_from_the_store() -> None:
    class Counting(MemoryVectorStore):
        reads = 0

        def get(self, ids: Sequence[str]) -> list[Chunk]:
            self.reads += 1
            return super().get(ids)

    store = Counting()
    read = SearchResult("a", "t", {}, 0.5, 0.5)
    rows = rows_of({"dense": [Hit("a", 0.5, read)]}, ["a"], store, None, unit(1, 0))
    assert rows == Rows({"a": read}) and store.reads == 0


def test_results_carry_each_retrievers_rank_the_name_hit_and_the_rankings_value() -> None:
    rows = Rows({doc_id: SearchResult(doc_id, doc_id, {}, cosine, 1 - cosine)
                 for doc_id, cosine in [("a", 0.8), ("b", 0.6), ("c", 0.4)]})
    hits = {"dense": [Hit("a", 0.8), Hit("b", 0.6)], "sparse": [Hit("c", 5.0), Hit("a", 2.0)]}
    results = build_results([("c", 0.9), ("a", 0.7), ("gone", 0.5), ("b", 0.3)], hits, rows,
                            defining=["c"])
    assert [(r.id, r.rank_score, r.score) for r in results] == [("c", 0.9, 0.4), ("a", 0.7, 0.8),
                                                                ("b", 0.3, 0.6)]
    assert results[0].retrievers == {"sparse": RetrieverHit(1, 5.0), "name": RetrieverHit(1, 1.0)}
    assert list(results[1].retrievers.items()) == [("dense", RetrieverHit(1, 0.8)),
                                                   ("sparse", RetrieverHit(2, 2.0))]
    assert results[2].retrievers == {"dense": RetrieverHit(2, 0.6)}
    assert all(row.retrievers == {} and row.rank_score == row.score for row in rows.by_id.values())


def test_the_reranker_returns_new_results_and_leaves_those_it_read() -> None:
    class Shortest:
        def score(self, query: str, results: Sequence[SearchResult]) -> list[float]:
            return [-float(len(r.text)) for r in results]

    given = [SearchResult("long", "a long text", {}, 0.9, 0.1, rank_score=0.5),
             SearchResult("short", "short", {}, 0.2, 0.8, rank_score=0.4)]
    reranked = rerank(Shortest(), "q", given)
    assert [(r.id, r.rank_score, r.retrievers) for r in reranked] == [
        ("short", -5.0, {"rerank": RetrieverHit(1, -5.0)}),
        ("long", -11.0, {"rerank": RetrieverHit(2, -11.0)})]
    assert [(r.rank_score, r.retrievers) for r in given] == [(0.5, {}), (0.4, {})]
