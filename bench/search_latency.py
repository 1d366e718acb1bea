"""Hybrid vs dense search latency at 100k chunks, and BM25 build time vs rank-bm25.

Corpus: the Python standard library cut into 300-character pieces (first N pieces).
Vectors are random unit 384-d rows (latency does not depend on their content, and random
vectors make dense and BM25 candidates disjoint: the most work for fusion). Store: the
exact in-memory store. Queries: 200 sets of 4 words drawn from random chunks. Reported
p50 excludes query embedding (search_detailed's other stages summed), as the issue asks.

    python bench/search_latency.py [--chunks 100000] [--queries 200] [--candidate-k 100 200]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from rank_bm25 import BM25Okapi

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import stdlib_pieces  # noqa: E402

from ragloom.config import RAGConfig
from ragloom.embeddings.hashing import HashEmbeddingProvider
from ragloom.retrieval.bm25 import BM25Index
from ragloom.retrieval.search_mode import SearchMode
from ragloom.retrieval.searcher import Searcher
from ragloom.retrieval.sparse import SparseIndex
from ragloom.retrieval.tokenize import tokenize
from ragloom.stores.memory import MemoryVectorStore

DIM = 384


class RandomQueries(HashEmbeddingProvider):
    """Query vectors at no cost: a seeded random unit vector per call."""

    def __init__(self) -> None:
        super().__init__(DIM)
        self._rng = np.random.default_rng(11)

    def embed_query(self, text: str) -> np.ndarray:
        vector = self._rng.normal(size=DIM).astype(np.float32)
        return vector / np.linalg.norm(vector)


def p50_ms(searcher: Searcher, queries: list[str], hybrid: bool) -> float:
    laps = []
    for query in queries:
        mode = SearchMode.HYBRID if hybrid else SearchMode.DENSE
        response = searcher.search(query, 10, mode=mode, mmr=False)
        laps.append(sum(v for k, v in response.timings_ms.items() if k != "embed_query"))
    return statistics.median(laps)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--candidate-k", type=int, nargs="+", default=[100],
                        help="retrieval.candidate_k values to time (each a row)")
    args = parser.parse_args()
    texts = stdlib_pieces(args.chunks)
    ids = [f"c{i}" for i in range(len(texts))]
    metadatas = [{"path": f"lib/{i // 30}.py", "chunk_index": i % 30} for i in range(len(texts))]
    print(f"corpus: {len(texts)} chunks of the standard library (300 characters)")

    started = time.perf_counter()
    tokens = [tokenize(text) for text in texts]
    tokenizing = time.perf_counter() - started
    builds = {"rank-bm25 BM25Okapi": [], "ragloom BM25Index": []}
    for _ in range(3):
        started = time.perf_counter()
        BM25Okapi(tokens)
        builds["rank-bm25 BM25Okapi"].append(time.perf_counter() - started)
        started = time.perf_counter()
        BM25Index().add(ids, tokens, metadatas)
        builds["ragloom BM25Index"].append(time.perf_counter() - started)
    reference, ours = (statistics.median(v) for v in builds.values())
    print(f"tokenizing (shared by both): {tokenizing:.2f}s")
    print(f"BM25 build, median of 3: rank-bm25 {reference:.2f}s, ragloom {ours:.2f}s "
          f"(ratio {ours / reference:.2f}x)")

    rng = np.random.default_rng(5)
    vectors = rng.normal(size=(len(texts), DIM)).astype(np.float32)
    store = MemoryVectorStore()
    for start in range(0, len(texts), 10_000):
        stop = start + 10_000
        store.upsert(ids[start:stop], vectors[start:stop], texts[start:stop], metadatas[start:stop])
    sparse = SparseIndex()
    sparse.add(ids, texts, metadatas)
    random.seed(5)
    words = [w for w in (t.split() for t in random.sample(texts, args.queries))]
    queries = [" ".join(random.sample(w, min(4, len(w)))) for w in words if w]
    for candidate_k in args.candidate_k:
        for label, feedback in (("feedback off (default)", False), ("feedback on", True)):
            config = RAGConfig(embedding={"provider": "hash"},
                               retrieval={"feedback": feedback, "candidate_k": candidate_k})
            searcher = Searcher(RandomQueries(), store, sparse, config)
            p50_ms(searcher, queries[:10], True)  # warm caches
            dense, hybrid = p50_ms(searcher, queries, False), p50_ms(searcher, queries, True)
            print(f"candidate_k {candidate_k}, search p50 excluding query embedding, {label}: "
                  f"dense {dense:.2f} ms, hybrid {hybrid:.2f} ms, ratio {hybrid / dense:.2f}x")

if __name__ == "__main__":
    main()
