"""The one place a search's results are built: the rows of the candidates a ranking keeps
(as a retriever read them, else read here: text and metadata from the store, the cosine
from its vector), each with every retriever's hit and the value the ranking gave it.

A chunk BM25 holds whose vector is not stored yet (progressive indexing) comes from the
waiting chunks with cosine 0 and is listed in ``Rows.unembedded`` (the relevance gate lets
its words decide; MMR gives it a zero vector).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

import numpy as np

from ragloom.retrieval.retrievers import Hit, Ranking
from ragloom.stores.base import VectorStore
from ragloom.types import Chunk, RetrieverHit, SearchResult


class ChunkSource(Protocol):
    """Where chunks BM25 holds but the store does not yet come from (``indexing.unembedded``)."""

    def get(self, ids: Sequence[str]) -> list[Chunk]: ...


@dataclass(frozen=True)
class Rows:
    """Candidates' rows by id (a row's ``score`` is its cosine), and the ids among them
    with no vector yet."""

    by_id: Mapping[str, SearchResult]
    unembedded: frozenset[str] = frozenset()


def rows_of(hits: Mapping[str, Sequence[Hit]], ids: Sequence[str], store: VectorStore,
            waiting: ChunkSource | None, vector: np.ndarray) -> Rows:
    """The rows of ``ids``: those a retriever read, the rest read from the store (or from
    ``waiting``); an id found nowhere (deleted since it was ranked) has none."""
    by_id = {hit.id: hit.row for found in hits.values() for hit in found if hit.row is not None}
    missing = [doc_id for doc_id in ids if doc_id not in by_id]
    if not missing:
        return Rows(by_id)
    chunks = store.get(missing)
    unembedded: set[str] = set()
    if waiting is not None and len(chunks) < len(missing):  # BM25 ahead of the store
        stored = {chunk.id for chunk in chunks}
        for chunk in waiting.get([doc_id for doc_id in missing if doc_id not in stored]):
            by_id[chunk.id] = SearchResult(chunk.id, chunk.text, chunk.metadata, 0.0, 1.0)
            unembedded.add(chunk.id)
    if chunks:
        try:
            vectors = list(store.get_vectors([c.id for c in chunks]))
        except KeyError:  # one was deleted since ``get`` (a server written under its readers)
            rows = {chunk.id: vector_of(store, chunk.id) for chunk in chunks}
            chunks = [chunk for chunk in chunks if rows[chunk.id] is not None]
            vectors = [rows[chunk.id] for chunk in chunks]
        query = vector / (np.linalg.norm(vector) or 1.0)
        for chunk, row in zip(chunks, vectors):
            cosine = float(row @ query)
            by_id[chunk.id] = SearchResult(chunk.id, chunk.text, chunk.metadata, cosine, 1.0 - cosine)
    return Rows(by_id, frozenset(unembedded))


def vector_of(store: VectorStore, chunk_id: str) -> np.ndarray | None:
    """The chunk's vector, None when it is not (any more) stored."""
    try:
        row: np.ndarray = store.get_vectors([chunk_id])[0]
    except KeyError:
        return None
    return row


def build_results(kept: Ranking, hits: Mapping[str, Sequence[Hit]], rows: Rows,
                  defining: Sequence[str] = ()) -> list[SearchResult]:
    """One result per kept (id, value) with a row, in order: ``rank_score`` = the value,
    ``retrievers`` = where each retriever ranked it, and ``name`` for a chunk defining a
    name the query uses (rank in ``defining``, score 1)."""
    ranks = {name: _first_ranks((hit.id, hit.score) for hit in found) for name, found in hits.items()}
    ranks["name"] = _first_ranks((doc_id, 1.0) for doc_id in defining)
    results = []
    for doc_id, value in kept:
        row = rows.by_id.get(doc_id)
        if row is None:
            continue  # deleted between BM25 and the store read
        found = {name: by_id[doc_id] for name, by_id in ranks.items() if doc_id in by_id}
        results.append(replace(row, retrievers=found, rank_score=value))
    return results


def _first_ranks(ranking: Iterable[tuple[str, float]]) -> dict[str, RetrieverHit]:
    """Each id's first 1-based rank in ``ranking`` and its score there."""
    ranks: dict[str, RetrieverHit] = {}
    for rank, (doc_id, score) in enumerate(ranking, start=1):
        ranks.setdefault(doc_id, RetrieverHit(rank, score))
    return ranks


def texts_of(hits: Mapping[str, Sequence[Hit]], ids: Sequence[str],
             store: VectorStore) -> list[SearchResult]:
    """The chunks ``ids`` to be read, not scored: a retriever's row when it read one, else
    the store's chunk (cosine 0), in ``ids``' order; an id found nowhere has none."""
    rows = {hit.id: hit.row for found in hits.values() for hit in found if hit.row is not None}
    read = {chunk.id: SearchResult(chunk.id, chunk.text, chunk.metadata, 0.0, 1.0)
            for chunk in store.get([doc_id for doc_id in ids if doc_id not in rows])}
    return [row for doc_id in ids if (row := rows.get(doc_id) or read.get(doc_id)) is not None]


def vectors_of(store: VectorStore, ids: Sequence[str], unembedded: frozenset[str],
               dimension: int) -> np.ndarray:
    """Stored vectors of ``ids``; zeros for chunks with none yet (progressive indexing)."""
    if not unembedded.intersection(ids):
        return store.get_vectors(list(ids))
    stored = [doc_id for doc_id in ids if doc_id not in unembedded]
    rows = dict(zip(stored, store.get_vectors(stored))) if stored else {}
    empty = np.zeros(dimension, dtype=np.float32)
    return np.stack([rows.get(doc_id, empty) for doc_id in ids])
