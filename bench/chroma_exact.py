"""Two builds of one Chroma collection, the same vectors added in two orders: how many
queries get a different top 10, recall@10 against exact search, and ms per query, with
Chroma's default ``ef_search`` (100) and with ragloom's (``stores.chroma.EXACT_UP_TO``).

Vectors: ``--size`` unit vectors clustered around size/50 centres (384-d), 100 queries
near stored vectors; added in pages of 5,000 as ragloom's writer does.

    python bench/chroma_exact.py [--size 10000]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from typing import Any

import numpy as np

from ragloom.stores.chroma import EXACT_UP_TO


def build(vectors: np.ndarray, ids: list[str], order: np.ndarray, configuration: Any) -> Any:
    import chromadb

    client = chromadb.PersistentClient(tempfile.mkdtemp(prefix="ragloom-chroma-exact-"))
    collection = client.create_collection("exactness", metadata={"hnsw:space": "cosine"},
                                          configuration=configuration, embedding_function=None)
    for start in range(0, len(order), 5000):
        page = order[start:start + 5000]
        collection.add(ids=[ids[i] for i in page], embeddings=vectors[page])
    return collection


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10_000)
    size = parser.parse_args().size
    rng = np.random.default_rng(0)
    centres = rng.standard_normal((max(1, size // 50), 384)).astype(np.float32)
    vectors = (centres[rng.integers(0, len(centres), size)]
               + 0.6 * rng.standard_normal((size, 384))).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    ids = [f"c{i:07d}" for i in range(size)]
    queries = vectors[rng.integers(0, size, 100)] + 0.3 * rng.standard_normal((100, 384)).astype(np.float32)
    exact = [set(np.argsort(-(vectors @ q))[:10].tolist()) for q in queries]
    shuffled = rng.permutation(size)
    print(f"{'ef_search':<24}{'differing top 10':>18}{'recall@10':>11}{'ms/query':>10}")
    for name, configuration in (("100 (Chroma's default)", None),
                                (f"{EXACT_UP_TO} (ragloom)", {"hnsw": {"ef_search": EXACT_UP_TO}})):
        first = build(vectors, ids, np.arange(size), configuration)
        second = build(vectors, ids, shuffled, configuration)
        started = time.perf_counter()
        one = [first.query(query_embeddings=[q], n_results=10)["ids"][0] for q in queries]
        milliseconds = (time.perf_counter() - started) * 1000 / len(queries)
        two = [second.query(query_embeddings=[q], n_results=10)["ids"][0] for q in queries]
        differing = sum(a != b for a, b in zip(one, two))
        recall = np.mean([len(exact[i] & {int(x[1:]) for x in found}) / 10 for i, found in enumerate(one)])
        print(f"{name:<24}{differing:>14} / 100{recall:>11.3f}{milliseconds:>10.1f}", flush=True)


if __name__ == "__main__":
    main()
