"""Vector store write and query speed: upsert chunks/s and query p50 ms.

Random unit 384-d vectors with realistic metadata, upserted in batches of 1,000 (as the
indexer writes), then 200 single queries (top 10). Stores: memory (in-memory), chroma embedded, and
chroma remote (a ``chroma run`` server this script starts on 127.0.0.1 and stops).

    python bench/store_throughput.py [--sizes 10000 100000] [--stores memory chroma chroma-remote]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "stores"))

from chroma_server import ChromaServer  # noqa: E402

from ragloom.stores.base import EmbeddingSpec, VectorStore  # noqa: E402
from ragloom.stores.memory import MemoryVectorStore  # noqa: E402

DIM = 384
BATCH = 1000
QUERIES = 200
SPEC = EmbeddingSpec("bench/random", DIM)


@contextmanager
def open_store(kind: str, folder: Path) -> Iterator[VectorStore]:
    if kind == "memory":
        yield MemoryVectorStore()
        return
    from ragloom.stores.chroma import ChromaVectorStore

    if kind == "chroma":
        yield ChromaVectorStore.open_local(folder / "chroma", "bench", SPEC)
        return
    with ChromaServer(folder / "server") as server:
        yield ChromaVectorStore.open_remote(server.url, "bench", SPEC)


def measure(kind: str, size: int, rng: np.random.Generator) -> tuple[float, float]:
    vectors = rng.normal(size=(size, DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    ids = [f"chunk-{i}" for i in range(size)]
    texts = [f"text of chunk {i} " * 10 for i in range(size)]
    metadatas = [{"path": f"src/module_{i // 20}.py", "chunk_index": i % 20, "start_line": i % 400,
                  "end_line": i % 400 + 20, "language": "python"} for i in range(size)]
    queries = vectors[rng.choice(size, QUERIES, replace=False)] + 0.05 * rng.normal(size=(QUERIES, DIM))
    with tempfile.TemporaryDirectory() as folder, open_store(kind, Path(folder)) as store:
        started = time.perf_counter()
        for start in range(0, size, BATCH):
            stop = start + BATCH
            store.upsert(ids[start:stop], vectors[start:stop], texts[start:stop], metadatas[start:stop])
        upsert_rate = size / (time.perf_counter() - started)
        store.query(queries[0], 10)
        latencies = []
        for query in queries:
            started = time.perf_counter()
            store.query(query, 10)
            latencies.append((time.perf_counter() - started) * 1000)
        store.close()
    return upsert_rate, statistics.median(latencies)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--stores", nargs="+", default=["memory", "chroma", "chroma-remote"])
    args = parser.parse_args()
    rng = np.random.default_rng(7)
    print(f"{'store':<15}{'chunks':>9}{'upsert chunks/s':>17}{'query p50 ms':>14}")
    for size in args.sizes:
        for kind in args.stores:
            rate, p50 = measure(kind, size, rng)
            print(f"{kind:<15}{size:>9}{rate:>17.0f}{p50:>14.2f}", flush=True)


if __name__ == "__main__":
    main()
