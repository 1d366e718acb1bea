"""The read path as a pipeline: query -> embed -> retrievers (dense top-k, BM25 top-k)
-> fusion (definitions of names the query uses first) -> (reranker) -> (MMR) -> copies of
one text collapsed -> adjacent parts merged -> relevance gate -> min_score -> at most
``max_per_file`` results per file -> the first ``top_k`` -> (contextual compression:
each result's text cut to the lines bearing on the query, ``compression``). In one sort
(``priors``): tests, import blocks, data rows, licences below the rest unless asked about
(``test_prior``, ``import_prior``, ``data_prior``, ``legal_prior``); routes, settings, templates
for how something works (``wiring_prior``); documents for how or where (``prose_prior``); files
outside the part or entity model named (``layout_priors``); the back end for a UI question
(``frontend_prior``); then route handlers each before its registration (``registration_link``).

Everything before the final cut looks at a window of candidates that does not depend on
``top_k`` (``merge.MERGE_WINDOW`` for merging, ``GATE_WINDOW`` for the gate; fusion and the
priors rank each retriever's first ``retrieval.candidate_k`` hits, ``MERGE_WINDOW`` in
plain dense mode, four times as many for the enumerations a question asking which values
something takes names, ``enum_prior``; a large ``top_k`` only appends the further
candidates after them), so the results of a search with ``top_k = k`` are the first ``k``
of the same search with any larger ``top_k``. MMR is the exception: it chooses from the best ``4 * top_k``.

``score`` is always the cosine similarity to the query and ``distance`` = 1 - score, in
every mode, so ``min_score`` means the same thing everywhere. Results are ordered by
``rank_score``: the cosine in dense mode, the fused value in hybrid mode (each retriever's
own rank and score are in ``retrievers``: ``dense``, ``sparse``, ``name``).
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

from ragloom.config import RAGConfig
from ragloom.embeddings.base import EmbeddingProvider
from ragloom.embeddings.query_cache import QueryEmbedder
from ragloom.filters import Condition, Filters, compile_filters, resolve_globs
from ragloom.retrieval.candidates import ChunkSource, build_results, rows_of
from ragloom.retrieval.compression import CompressionSettings, compress_results
from ragloom.retrieval.data_prior import asks_about_data, thin_data_rows, without_data
from ragloom.retrieval.duplicates import collapse_duplicates
from ragloom.retrieval.enum_prior import named_enumerations, search_depth
from ragloom.retrieval.file_cap import cap_per_file
from ragloom.retrieval.frontend_prior import prior_for_front_end
from ragloom.retrieval.fusion import fuse
from ragloom.retrieval.layout_priors import asks_for_an_overview, layout_priors
from ragloom.retrieval.merge import MERGE_WINDOW, merge_adjacent_parts
from ragloom.retrieval.mmr import min_max, mmr_order, mmr_pool_size
from ragloom.retrieval.priors import reweigh
from ragloom.retrieval.query_priors import query_priors
from ragloom.retrieval.registration_link import IndexLookup, registrations_beside
from ragloom.retrieval.relevance_gate import passes_gate
from ragloom.retrieval.rerankers import Reranker, rerank, rerankers
from ragloom.retrieval.retrievers import (
    DenseRetriever,
    Hit,
    Query,
    Ranking,
    Retriever,
    SparseRetriever,
    ranking,
    timed_retrieve,
)
from ragloom.retrieval.search_mode import SearchMode
from ragloom.retrieval.sparse_base import SparseBackend
from ragloom.retrieval.test_prior import without_tests
from ragloom.retrieval.tokenize import Tokenizer
from ragloom.retrieval.versions import one_version_per_file
from ragloom.stores.base import VectorStore, searches_text
from ragloom.types import Metadata, SearchResult

#: The relevance gate judges this many of the best results, whatever ``top_k`` is (the
#: default ``top_k``): a query is related to the corpus or not, however many results it asks.
GATE_WINDOW = 5


@dataclass
class SearchResponse:
    """Results plus what produced them: mode, per-stage milliseconds, candidate counts, the
    best cosine among the results the relevance gate judged and the gate it applied (so a
    caller can say why a query got nothing)."""

    results: list[SearchResult]
    mode: str
    timings_ms: dict[str, float] = field(default_factory=dict)
    candidates: dict[str, int] = field(default_factory=dict)
    best_score: float | None = None
    relevance_gate: float | None = None

    @property
    def gated(self) -> bool:
        """Whether the relevance gate emptied this search (``below_relevance_gate``)."""
        return bool(self.candidates.get("below_relevance_gate"))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class _Stopwatch:
    def __init__(self) -> None:
        self.timings: dict[str, float] = {}
        self._last = time.perf_counter()

    def lap(self, stage: str) -> None:
        now = time.perf_counter()
        self.timings[stage] = round((now - self._last) * 1000, 3)
        self._last = now

    def record(self, stage: str, milliseconds: float) -> None:
        """A stage timed on its own (it overlapped another); the next lap starts now."""
        self.timings[stage] = round(milliseconds, 3)
        self._last = time.perf_counter()


class Searcher:
    """Runs one search over a store and (for hybrid) its BM25 index. Query vectors come
    through ``queries`` (default: a memory-only ``QueryEmbedder`` over ``provider``)."""

    def __init__(self, provider: EmbeddingProvider, store: VectorStore, sparse: SparseBackend,
                 config: RAGConfig, queries: QueryEmbedder | None = None,
                 unembedded: ChunkSource | None = None) -> None:
        self.provider = provider
        #: Chunks BM25 holds whose vectors are not stored yet (progressive indexing).
        self.unembedded = unembedded
        self.queries = queries if queries is not None else QueryEmbedder(provider)
        self.store = store
        self.sparse = sparse
        self.config = config
        self.dense_retriever = DenseRetriever(store)
        self.sparse_retriever = SparseRetriever(sparse, config.retrieval)
        retrieval = config.retrieval  # the gate's lexical evidence reads words as BM25 does
        self.tokenizer = Tokenizer(retrieval.stemming, retrieval.stopwords, retrieval.split_identifiers)
        name = config.retrieval.reranker
        self.reranker: Reranker | None = rerankers.get(name)(config) if name else None

    def search(self, query: str, top_k: int, filters: Filters | None = None,
               mode: SearchMode | None = None, mmr: bool | None = None,
               min_score: float | None = None, compress: bool | None = None) -> SearchResponse:
        """One search; ``mode`` is "dense", "sparse" (BM25 alone) or "hybrid" (default:
        ``retrieval.hybrid``); ``compress`` (default: ``retrieval.compress``) keeps only the
        lines of each result that bear on the query, after ranking."""
        response = self._search(query, top_k, filters, mode, mmr, min_score)
        settings = self.config.retrieval
        if (settings.compress if compress is None else compress) and response.results:
            started = time.perf_counter()
            response.results = compress_results(query, response.results, self.tokenizer,
                                                CompressionSettings.of(settings))
            response.timings_ms["compress"] = round((time.perf_counter() - started) * 1000, 3)
        return response

    def _search(self, query: str, top_k: int, filters: Filters | None, mode: SearchMode | None,
                mmr: bool | None, min_score: float | None) -> SearchResponse:
        settings = self.config.retrieval
        mode = mode or (SearchMode.HYBRID if settings.hybrid else SearchMode.DENSE)
        mmr = settings.mmr if mmr is None else mmr
        threshold = self.config.min_score if min_score is None else min_score
        conditions = compile_filters(filters)  # once per query, before anything is paid for
        clock = _Stopwatch()
        if searches_text(self.store):
            return self._remote(query, top_k, filters, threshold, clock)
        if not self.store.hands_out_vectors and (mmr or mode != "dense"):
            raise ValueError(f"{'MMR' if mmr else mode + ' search'} needs stored vectors, which "
                             f"the {self.store.name!r} store does not hand out; use mode=\"dense\"")
        thin = not filters and not asks_about_data(query)  # a filter the caller chose is kept whole
        if not settings.include_tests:  # the same test as without_tests, on compiled filters
            filters, conditions = without_tests(filters), [*conditions, _NOT_A_TEST]
        store_filters = filters if self.store.glob_filters else resolve_globs(
            filters, self.sparse.distinct_values, conditions)
        # Sparse mode embeds the query too: every result's score is its cosine.
        request = Query(query, self.queries.embed_query(query), filters, conditions,
                        store_filters=store_filters)
        clock.lap("embed_query")
        # Merging parts and collapsing copies free slots, refilled from the next candidates.
        wanted = max(2 * top_k, MERGE_WINDOW) if (settings.merge_parts or settings.collapse_duplicates) \
            else max(top_k, GATE_WINDOW)
        reranking = self.reranker is not None
        priors = query_priors(query, settings)
        widened = mode != "dense" or mmr or reranking
        window = max(MERGE_WINDOW, settings.candidate_k) if widened else MERGE_WINDOW  # not top_k's
        pool = max(wanted, window)
        deep = search_depth(query, pool) if widened else pool  # enumerations sit deeper (enum_prior)
        with self.store.read_snapshot():  # every read of this search sees one version
            hits = self._retrieve(request, mode, deep, clock)
            if "dense" in hits and thin:  # a big table crowds the rest out
                hits["dense"] = thin_data_rows(hits["dense"], deep, lambda: self.dense_retriever.retrieve(
                    replace(request, store_filters=without_data(request.store_filters)), deep))
            candidates = {name: len(found) for name, found in hits.items()}
            defining = self.sparse.defining(request.text, request.conditions) \
                if mode == "hybrid" and settings.exact_names else []
            ranked, head = self._window_first(mode, hits, candidates, defining, window)
            # Demoted candidates leave the window to the next ones (test files with many
            # matching parts would otherwise fill it, and the per-file cap's empty slots).
            cut = pool if (mmr or reranking or priors) else wanted
            named = self._named_deeper(query, hits, ranked[cut:]) if deep > pool else set()
            kept = ranked[:cut] + [pair for pair in ranked[cut:] if pair[0] in named]
            rows = rows_of(hits, [doc_id for doc_id, _ in kept], self.store, self.unembedded,
                           request.vector)
            results = build_results(kept, hits, rows, defining)  # the one place results are made
            if mode != "dense":
                clock.lap("fuse" if mode == "hybrid" else "load")
            results = one_version_per_file(results, self.sparse)  # a server written meanwhile
            head |= named
            judged = [r for r in results if r.id in head]  # the priors' window, then the rest
            results = registrations_beside(query, reweigh(  # one sort (priors), then routes
                judged, priors + layout_priors(query, judged) + prior_for_front_end(query, judged))
                + [r for r in results if r.id not in head], len(judged),
                IndexLookup(self.sparse, request, hits, self.store, self.unembedded))
            if self.reranker is not None and results:
                results = rerank(self.reranker, query, results[:settings.rerank_k])
                clock.lap("rerank")
            if mmr and results:
                results = results[:mmr_pool_size(top_k)]
                vectors = self._vectors(rows.unembedded, [r.id for r in results])
                order = mmr_order(min_max([float(r.rank_score or 0.0) for r in results]), vectors, top_k,
                                  settings.mmr_lambda)
                results = [results[i] for i in order]
                clock.lap("mmr")
            if settings.collapse_duplicates:
                results = collapse_duplicates(results, self._copies_of)
        if settings.merge_parts:
            results = merge_adjacent_parts(results)
        best = max((r.score for r in results[:GATE_WINDOW]), default=None)
        results = _at_least(self._gate(query, results, candidates, rows.unembedded), threshold)
        results = cap_per_file(results, top_k, settings.max_per_file)
        return SearchResponse(results, mode.value, clock.timings, candidates, best, self.relevance_gate)

    def _remote(self, query: str, top_k: int, filters: Filters | None, threshold: float | None,
                clock: _Stopwatch) -> SearchResponse:
        """A store that searches by text (the MCP bridge) ranks on its side; only min_score
        applies here."""
        assert searches_text(self.store)
        results = self.store.query_text(query, top_k, filters)[:top_k]
        clock.lap("remote")
        return SearchResponse(_at_least(results, threshold), "remote", clock.timings,
                              {"remote": len(results)})

    def _copies_of(self, digests: list[str]) -> list[tuple[str, Metadata]]:
        return self.sparse.chunks_with("content_hash", digests)

    def _retrievers(self, mode: SearchMode) -> list[Retriever]:
        by_mode: dict[SearchMode, list[Retriever]] = {
            SearchMode.DENSE: [self.dense_retriever], SearchMode.SPARSE: [self.sparse_retriever],
            SearchMode.HYBRID: [self.dense_retriever, self.sparse_retriever]}
        return by_mode[mode]

    def _retrieve(self, request: Query, mode: SearchMode, pool: int,
                  clock: _Stopwatch) -> dict[str, list[Hit]]:
        """Each retriever's top ``pool``. When the store's query waits on a server, the other
        retrievers run here meanwhile (in hybrid mode the two halves overlap, and each
        one's timing is its own)."""
        first, *others = self._retrievers(mode)
        if not others or not self.store.queries_elsewhere:
            hits = {}
            for retriever in (first, *others):
                hits[retriever.name] = retriever.retrieve(request, pool)
                clock.lap(retriever.name)
            return hits
        with ThreadPoolExecutor(1, thread_name_prefix="ragloom-retrieve") as worker:
            waiting = worker.submit(timed_retrieve, first, request, pool)
            timed = [timed_retrieve(retriever, request, pool) for retriever in others]
            timed.insert(0, waiting.result())
        for retriever, (_, milliseconds) in zip((first, *others), timed):
            clock.record(retriever.name, milliseconds)
        return {retriever.name: found for retriever, (found, _) in zip((first, *others), timed)}

    def _named_deeper(self, query: str, hits: dict[str, list[Hit]], deeper: Ranking) -> set[str]:
        """Which ``deeper`` candidates define an enumeration ``query`` names (``enum_prior``):
        their text is read (a retriever's row, else the store's chunk), not their vectors."""
        rows = {hit.id: hit.row for found in hits.values() for hit in found if hit.row is not None}
        ids = [doc_id for doc_id, _ in deeper]
        read = self.store.get([doc_id for doc_id in ids if doc_id not in rows])
        found = [rows[doc_id] for doc_id in ids if doc_id in rows]
        return named_enumerations(query, found + [SearchResult(c.id, c.text, c.metadata, 0.0, 1.0)
                                                  for c in read])

    def _window_first(self, mode: SearchMode, hits: dict[str, list[Hit]], candidates: dict[str, int],
                      defining: list[str], window: int) -> tuple[Ranking, set[str]]:
        """The ranking of each retriever's first ``window`` hits (cut to ``window``: what the
        priors reorder, the same whatever ``top_k`` is), then the other candidates of a larger
        pool in the ranking of all hits; and the ids of the first part."""
        ranked = self._rank(mode, {name: found[:window] for name, found in hits.items()},
                            candidates, defining)
        chosen = {doc_id for doc_id, _ in ranked[:window]}
        if all(len(found) <= window for found in hits.values()):
            return ranked, chosen
        rest = self._rank(mode, hits, candidates, defining)
        return ranked[:window] + [pair for pair in rest if pair[0] not in chosen], chosen

    def _rank(self, mode: SearchMode, hits: dict[str, list[Hit]], candidates: dict[str, int],
              defining: list[str]) -> Ranking:
        """The one retriever's ranking (dense, or BM25 alone), or in hybrid mode the fused
        one with the chunks ``defining`` a name the query uses first."""
        if mode != "hybrid":
            return ranking(hits[mode.value])
        settings = self.config.retrieval
        weights = {"dense": settings.dense_weight, "sparse": settings.sparse_weight}
        ranked = fuse(settings.fusion, {name: ranking(found) for name, found in hits.items()},
                      weights, settings.rrf_k)
        candidates["fused"] = len(ranked)
        return _definitions_first(ranked, defining)

    @property
    def relevance_gate(self) -> float | None:
        """The cosine a query's best result must reach: the config's, else the model's."""
        gate = self.config.relevance_gate
        if gate is False:  # no gate
            return None
        return self.provider.default_relevance_gate if gate is None else gate

    def _gate(self, query: str, results: list[SearchResult], candidates: dict[str, int],
              unembedded: frozenset[str]) -> list[SearchResult]:
        """Nothing for a query unrelated to the corpus (``relevance_gate``; with no vector yet the
        words decide), never for one asking what the project is (``overview_prior``)."""
        gate = self.relevance_gate
        judged = results[:GATE_WINDOW]
        unscored = [r for r in judged if r.id in unembedded]
        if gate is None or asks_for_an_overview(query) \
                or passes_gate(judged, gate, self.tokenizer(query), self.tokenizer, unscored):
            return results
        candidates["below_relevance_gate"] = len(judged)
        return []

    def _vectors(self, unembedded: frozenset[str], ids: list[str]) -> np.ndarray:
        """Stored vectors of ``ids``; zeros for chunks with none yet (progressive indexing)."""
        if not unembedded.intersection(ids):
            return self.store.get_vectors(ids)
        stored = [doc_id for doc_id in ids if doc_id not in unembedded]
        rows = dict(zip(stored, self.store.get_vectors(stored))) if stored else {}
        empty = np.zeros(self.provider.dimension, dtype=np.float32)
        return np.stack([rows.get(doc_id, empty) for doc_id in ids])


def _definitions_first(ranked: list[tuple[str, float]], defining: list[str]) -> list[tuple[str, float]]:
    """Chunks defining a name the query uses go first (they tie with the best fused value,
    so rank_score stays monotonic); the rest keep their fused order."""
    if not defining:
        return ranked
    top = ranked[0][1] if ranked else 1.0
    chosen = set(defining)
    return [(doc_id, top) for doc_id in defining] + [pair for pair in ranked if pair[0] not in chosen]


#: ``retrieval.test_prior.without_tests``'s condition, compiled.
_NOT_A_TEST = Condition("source_type", "$ne", "test")


def _at_least(results: list[SearchResult], threshold: float | None) -> list[SearchResult]:
    """The results whose cosine reaches ``min_score`` (all of them without one)."""
    return results if threshold is None else [r for r in results if r.score >= threshold]
