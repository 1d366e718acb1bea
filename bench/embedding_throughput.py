"""Local embedding backends and indexing speed against the raw torch model.

For the Cranfield abstracts and 5,000 standard-library pieces it prints, per run and as
medians: raw ``SentenceTransformer.encode`` (torch fp32) docs/s; each backend's own encode
docs/s (torch, ONNX Runtime fp32, ONNX Runtime int8); ragloom end to end (one file per
document on disk -> read -> chunk with the default token-sized chunking -> embed -> mock
store, fresh cache) with each backend; and the ratios to the raw torch encode. Then the
quality of each backend against torch fp32: cosine between the two vectors of each
Cranfield abstract, and nDCG@10 on Cranfield (dense and hybrid).

    python bench/embedding_throughput.py [--runs 3] [--skip-quality] [--skip-speed]
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

import numpy as np  # noqa: E402
from _data import CRANFIELD, cranfield_texts, stdlib_pieces  # noqa: E402

from ragloom import RAGConfig, RAGEngine  # noqa: E402
from ragloom.embeddings.local import LocalEmbeddingProvider  # noqa: E402
from ragloom.eval import evaluate, index_dataset, load_beir  # noqa: E402

BATCH_SIZE = 64
BACKENDS = ("torch", "onnx", "onnx-int8")


def index_seconds(texts: list[str], backend: str) -> float:
    """ragloom indexing ``texts`` as one file each with the default chunking."""
    config = RAGConfig(embedding_provider="local", embedding_backend=backend,
                       embedding_batch_size=BATCH_SIZE, vector_store={"provider": "mock"})
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        for index, text in enumerate(texts):
            (root / f"{index:05d}.txt").write_text(text, encoding="utf-8")
        with RAGEngine(config, root) as engine:
            started = time.perf_counter()
            engine.index_directory()
            return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--skip-quality", action="store_true")
    parser.add_argument("--skip-speed", action="store_true")
    args = parser.parse_args()
    corpora = {"cranfield": [text for _, text in cranfield_texts()], "stdlib": stdlib_pieces(5000)}
    providers = {backend: LocalEmbeddingProvider(batch_size=BATCH_SIZE, backend=backend)
                 for backend in BACKENDS}
    model = providers["torch"]._model
    model.encode(corpora["cranfield"][:64], batch_size=BATCH_SIZE)  # warm up
    for name, texts in ({} if args.skip_speed else corpora).items():
        raw: list[float] = []
        encode: dict[str, list[float]] = {b: [] for b in BACKENDS}
        indexed: dict[str, list[float]] = {b: [] for b in BACKENDS}
        for run in range(args.runs):
            started = time.perf_counter()
            model.encode(texts, batch_size=BATCH_SIZE, normalize_embeddings=True,
                         convert_to_numpy=True, show_progress_bar=False)
            raw.append(time.perf_counter() - started)
            for backend, provider in providers.items():
                started = time.perf_counter()
                provider.embed(texts)
                encode[backend].append(time.perf_counter() - started)
                indexed[backend].append(index_seconds(texts, backend))
            print(f"{name} run {run + 1}: raw {raw[-1]:.1f}s; " + "; ".join(
                f"{b} encode {encode[b][-1]:.1f}s index {indexed[b][-1]:.1f}s" for b in BACKENDS),
                flush=True)
        n = len(texts)
        base = statistics.median(raw)
        print(f"\n{name}: {n} documents, all-MiniLM-L6-v2, batch {BATCH_SIZE}, medians of {args.runs}")
        print(f"  raw torch encode : {n / base:7.1f} docs/s  1.00x")
        for backend in BACKENDS:
            seconds = statistics.median(encode[backend])
            print(f"  {backend:9} encode : {n / seconds:7.1f} docs/s  {base / seconds:.2f}x")
        for backend in BACKENDS:
            seconds = statistics.median(indexed[backend])
            print(f"  ragloom indexing, {backend:9} : {n / seconds:7.1f} docs/s  {base / seconds:.2f}x")
        print(flush=True)
    if args.skip_quality:
        return
    texts = corpora["cranfield"]
    reference = providers["torch"].embed(texts)
    dataset = load_beir(CRANFIELD)
    print("quality against torch fp32 (Cranfield):")
    for backend, provider in providers.items():
        cosines = np.sum(reference * provider.embed(texts), axis=1)
        with tempfile.TemporaryDirectory() as folder:
            config = RAGConfig(embedding_provider="local", embedding_backend=backend,
                               vector_store={"provider": "mock"})
            with RAGEngine(config, folder) as engine:
                index_dataset(engine, dataset)
                scores = {s.mode: s.ndcg for s in evaluate(engine, dataset, ("dense", "hybrid"))}
        print(f"  {backend:9} cosine mean {cosines.mean():.5f} min {cosines.min():.5f}  "
              f"nDCG@10 dense {scores['dense']:.4f} hybrid {scores['hybrid']:.4f}", flush=True)


if __name__ == "__main__":
    main()
