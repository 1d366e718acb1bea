"""Indexing overhead over the raw embedding model, on the Cranfield abstracts.

Prints documents/second for (a) raw ``SentenceTransformer.encode`` over all texts and
(b) ragloom indexing the same texts end to end (files on disk -> read -> chunk -> embed ->
mock store, cache on), their ratio, and the time of a second, unchanged indexing run.
Each document fits one chunk, so both embed exactly the same texts. Runs alternate and
medians are reported (the machine is noisy).

    python bench/embedding_throughput.py [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import cranfield_texts  # noqa: E402

from ragloom import RAGConfig, RAGEngine  # noqa: E402
from ragloom.embeddings.local import LocalEmbeddingProvider  # noqa: E402

BATCH_SIZE = 64


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    documents = cranfield_texts()
    texts = [text for _, text in documents]
    provider = LocalEmbeddingProvider(batch_size=BATCH_SIZE)
    model = provider._model  # the very SentenceTransformer ragloom uses
    model.encode(texts[:64], batch_size=BATCH_SIZE)  # warm up
    config = RAGConfig(embedding_provider="local", embedding_batch_size=BATCH_SIZE,
                       chunk_size=max(len(t) for t in texts) + 1, chunk_overlap=0,
                       vector_store={"provider": "mock"})
    raw_times, ragloom_times, second_times = [], [], []
    for run in range(args.runs):
        started = time.perf_counter()
        model.encode(texts, batch_size=BATCH_SIZE, normalize_embeddings=True,
                     convert_to_numpy=True, show_progress_bar=False)
        raw_times.append(time.perf_counter() - started)

        with tempfile.TemporaryDirectory() as folder:
            root = Path(folder)
            for doc_id, text in documents:
                (root / f"{doc_id}.txt").write_text(text, encoding="utf-8")
            with RAGEngine(config, root) as engine:
                started = time.perf_counter()
                report = engine.index_directory()
                ragloom_times.append(time.perf_counter() - started)
                assert report.chunks_embedded == len({t for t in texts if t.strip()}), report
                started = time.perf_counter()
                again = engine.index_directory()
                second_times.append(time.perf_counter() - started)
                assert again.chunks_embedded == 0
        print(f"run {run + 1}: raw {raw_times[-1]:.2f}s  ragloom {ragloom_times[-1]:.2f}s  "
              f"second {second_times[-1] * 1000:.1f}ms", flush=True)
    raw, indexed, second = (statistics.median(x) for x in (raw_times, ragloom_times, second_times))
    n = len(texts)
    print(f"\nCranfield: {n} documents, all-MiniLM-L6-v2, batch {BATCH_SIZE}, {args.runs} runs (medians)")
    print(f"raw SentenceTransformer.encode : {n / raw:8.1f} docs/s  ({raw:.2f}s)")
    print(f"ragloom index_directory        : {n / indexed:8.1f} docs/s  ({indexed:.2f}s)")
    print(f"ratio ragloom / raw            : {raw / indexed:8.3f}x")
    share = 100 * second / indexed
    print(f"second run (unchanged)         : {second * 1000:8.1f} ms = {share:.2f}% of first")


if __name__ == "__main__":
    main()
