"""The read path as a pipeline: query -> embed -> retrievers (dense top-k, BM25 top-k:
``retrievers``) -> ranking (fused, definitions of names the query uses first, the priors'
window first: ``candidate_window``) -> results built (``candidates``) -> priors (one sort,
then route handlers each before its registration: ``prior_stage``; again with a named
part's best chunks when none of the first files is inside it: ``part_lookup``) -> (reranker) -> (MMR)
-> copies of one text collapsed -> adjacent parts merged -> relevance gate
(``relevance_gate``) -> min_score -> at most ``max_per_file`` results per file -> the first
``top_k`` -> (contextual compression: each result's text cut to the lines bearing on the
query, ``compression``); what it hands back is a ``search_response.SearchResponse``. The
priors: tests, import blocks, data rows, licences below the rest unless asked about
(``test_prior``, ``import_prior``, ``data_prior``, ``legal_prior``); routes, settings, templates
for how something works (``wiring_prior``); documents for how or where (``prose_prior``); files
outside the part or entity model named (``layout_priors``); the back end for a UI question
(``frontend_prior``).

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
from dataclasses import replace

from ragloom.config import RAGConfig
from ragloom.embeddings.base import EmbeddingProvider
from ragloom.embeddings.query_cache import QueryEmbedder
from ragloom.filters import Condition, Filters, compile_filters, resolve_globs
from ragloom.retrieval.candidate_window import window_first
from ragloom.retrieval.candidates import ChunkSource, Rows, build_results, rows_of, texts_of, vectors_of
from ragloom.retrieval.compression import CompressionSettings, compress_results
from ragloom.retrieval.data_prior import asks_about_data, thin_data_rows, without_data
from ragloom.retrieval.duplicates import collapse_duplicates
from ragloom.retrieval.enum_prior import named_enumerations, search_depth
from ragloom.retrieval.file_cap import cap_per_file
from ragloom.retrieval.merge import MERGE_WINDOW, merge_adjacent_parts
from ragloom.retrieval.mmr import min_max, mmr_order, mmr_pool_size
from ragloom.retrieval.part_lookup import look_up_parts, part_missing, with_part_chunks
from ragloom.retrieval.prior_stage import apply_priors
from ragloom.retrieval.priors import Factor
from ragloom.retrieval.query_priors import query_priors
from ragloom.retrieval.registration_link import IndexLookup
from ragloom.retrieval.relevance_gate import GATE_WINDOW, relevant
from ragloom.retrieval.rerankers import Reranker, rerank, rerankers
from ragloom.retrieval.retrievers import (
    DenseRetriever,
    Hit,
    Query,
    Ranking,
    Retriever,
    SparseRetriever,
    timed_retrieve,
)
from ragloom.retrieval.search_mode import SearchMode
from ragloom.retrieval.search_response import SearchResponse, Stopwatch
from ragloom.retrieval.sparse_base import SparseBackend
from ragloom.retrieval.test_prior import without_tests
from ragloom.retrieval.tokenize import Tokenizer
from ragloom.retrieval.versions import one_version_per_file
from ragloom.stores.base import VectorStore, searches_text
from ragloom.types import Metadata, SearchResult


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
        clock = Stopwatch()
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
            ranked, head = window_first(mode, hits, candidates, defining, window, settings)
            # Demoted candidates leave the window to the next ones (test files with many
            # matching parts would otherwise fill it, and the per-file cap's empty slots).
            cut = pool if (mmr or reranking or priors) else wanted
            named = named_enumerations(query, texts_of(hits, [doc_id for doc_id, _ in ranked[cut:]],
                                                       self.store)) if deep > pool else set()
            kept = ranked[:cut] + [pair for pair in ranked[cut:] if pair[0] in named]
            results, rows = self._judged(query, kept, head | named, hits, request, defining, priors)
            if widened and settings.part_lookup and part_missing(query, results):  # part_lookup
                found = look_up_parts(query, self.sparse, request.conditions, settings.part_lookup)
                more, judged = with_part_chunks(kept, head | named, found)
                if more != kept:  # the priors again, with the part's chunks among the judged
                    results, rows = self._judged(query, more, judged, hits, request, defining, priors)
            if mode != "dense":
                clock.lap("fuse" if mode == "hybrid" else "load")
            if self.reranker is not None and results:
                results = rerank(self.reranker, query, results[:settings.rerank_k])
                clock.lap("rerank")
            if mmr and results:
                results = results[:mmr_pool_size(top_k)]
                vectors = vectors_of(self.store, [r.id for r in results], rows.unembedded,
                                     self.provider.dimension)
                order = mmr_order(min_max([float(r.rank_score or 0.0) for r in results]), vectors, top_k,
                                  settings.mmr_lambda)
                results = [results[i] for i in order]
                clock.lap("mmr")
            if settings.collapse_duplicates:
                results = collapse_duplicates(results, self._copies_of)
        if settings.merge_parts:
            results = merge_adjacent_parts(results)
        best = max((r.score for r in results[:GATE_WINDOW]), default=None)
        if not relevant(query, results, self.relevance_gate, self.tokenizer, rows.unembedded):
            candidates["below_relevance_gate"] = len(results[:GATE_WINDOW])
            results = []
        results = _at_least(results, threshold)
        results = cap_per_file(results, top_k, settings.max_per_file)
        return SearchResponse(results, mode.value, clock.timings, candidates, best, self.relevance_gate)

    def _judged(self, query: str, kept: Ranking, window: set[str], hits: dict[str, list[Hit]],
                request: Query, defining: list[str], priors: list[Factor]) -> tuple[list[SearchResult], Rows]:
        """The results of ``kept`` (one version per file) sorted once by the priors over
        ``window`` (``prior_stage``), and their rows."""
        rows = rows_of(hits, [doc_id for doc_id, _ in kept], self.store, self.unembedded, request.vector)
        results = build_results(kept, hits, rows, defining)  # the one place results are made
        results = one_version_per_file(results, self.sparse)  # a server written meanwhile
        return apply_priors(query, results, window, priors,  # one sort, then routes
                            IndexLookup(self.sparse, request, hits, self.store, self.unembedded)), rows

    def _remote(self, query: str, top_k: int, filters: Filters | None, threshold: float | None,
                clock: Stopwatch) -> SearchResponse:
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
                  clock: Stopwatch) -> dict[str, list[Hit]]:
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

    @property
    def relevance_gate(self) -> float | None:
        """The cosine a query's best result must reach: the config's, else the model's."""
        gate = self.config.relevance_gate
        if gate is False:  # no gate
            return None
        return self.provider.default_relevance_gate if gate is None else gate


#: ``retrieval.test_prior.without_tests``'s condition, compiled.
_NOT_A_TEST = Condition("source_type", "$ne", "test")


def _at_least(results: list[SearchResult], threshold: float | None) -> list[SearchResult]:
    """The results whose cosine reaches ``min_score`` (all of them without one)."""
    return results if threshold is None else [r for r in results if r.score >= threshold]
