"""Local embedding backends and indexing speed against the raw torch model.

For the Cranfield abstracts and 5,000 standard-library pieces it prints, per run and as
medians: raw ``SentenceTransformer.encode`` (torch fp32, its default arguments) docs/s;
each backend's own encode docs/s through ragloom (torch, ONNX Runtime fp32, ONNX Runtime
int8, default batch size); ragloom end to end (one file per document on disk -> read ->
chunk with the default token-sized chunking -> embed -> in-memory store, fresh cache) with the
default backend, and the share of that wall time spent outside the model;
and the ratios to the raw torch encode. Then the quality of each backend against torch
fp32: cosine between the two vectors of each Cranfield abstract, and nDCG@10 on
Cranfield (dense and hybrid).

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
from ragloom.apps.eval import evaluate, index_dataset, load_beir  # noqa: E402
from ragloom.embeddings.local import LocalEmbeddingProvider  # noqa: E402
from ragloom.embeddings.onnx_backend import resolve_backend  # noqa: E402

BACKENDS = ("torch", "onnx", "onnx-int8")
DEFAULT = resolve_backend(RAGConfig().embedding.backend)


class ModelClock:
    """Wall time spent inside the local model's ``_embed_batch`` (the rest is ragloom's)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._inner = LocalEmbeddingProvider._embed_batch

    def __enter__(self) -> ModelClock:
        inner = self._inner

        def timed(provider: LocalEmbeddingProvider, texts: list[str], task: str) -> np.ndarray:
            started = time.perf_counter()
            try:
                return inner(provider, texts, task)  # type: ignore[arg-type]
            finally:
                self.seconds += time.perf_counter() - started

        LocalEmbeddingProvider._embed_batch = timed  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        LocalEmbeddingProvider._embed_batch = self._inner  # type: ignore[method-assign]


def index_seconds(texts: list[str], backend: str) -> tuple[float, float]:
    """(wall seconds, seconds inside the model) of ragloom indexing ``texts`` as one file
    each with the default chunking."""
    config = RAGConfig(embedding={"provider": "local", "backend": backend},
                       vector_store={"provider": "memory"})
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        for index, text in enumerate(texts):
            (root / f"{index:05d}.txt").write_text(text, encoding="utf-8")
        with RAGEngine(config, root) as engine, ModelClock() as clock:
            started = time.perf_counter()
            engine.index_directory()
            return time.perf_counter() - started, clock.seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--skip-quality", action="store_true")
    parser.add_argument("--skip-speed", action="store_true")
    args = parser.parse_args()
    corpora = {"cranfield": [text for _, text in cranfield_texts()], "stdlib": stdlib_pieces(5000)}
    providers = {backend: LocalEmbeddingProvider(backend=backend) for backend in BACKENDS}
    model = providers["torch"]._model
    model.encode(corpora["cranfield"][:64])  # warm up
    indexing = (DEFAULT,)
    for name, texts in ({} if args.skip_speed else corpora).items():
        raw: list[float] = []
        encode: dict[str, list[float]] = {b: [] for b in BACKENDS}
        indexed: dict[str, list[float]] = {b: [] for b in indexing}
        outside: dict[str, list[float]] = {b: [] for b in indexing}
        for run in range(args.runs):
            started = time.perf_counter()
            model.encode(texts, normalize_embeddings=True, convert_to_numpy=True,
                         show_progress_bar=False)
            raw.append(time.perf_counter() - started)
            for backend, provider in providers.items():
                started = time.perf_counter()
                provider.embed(texts)
                encode[backend].append(time.perf_counter() - started)
            for backend in indexing:
                wall, in_model = index_seconds(texts, backend)
                indexed[backend].append(wall)
                outside[backend].append((wall - in_model) / wall)
            print(f"{name} run {run + 1}: raw {raw[-1]:.1f}s; " + "; ".join(
                f"{b} encode {encode[b][-1]:.1f}s" for b in BACKENDS) + "; " + "; ".join(
                f"ragloom {b} {indexed[b][-1]:.1f}s" for b in indexing), flush=True)
        n = len(texts)
        base = statistics.median(raw)
        print(f"\n{name}: {n} documents, all-MiniLM-L6-v2, medians of {args.runs}")
        print(f"  raw torch encode : {n / base:7.1f} docs/s  1.00x")
        for backend in BACKENDS:
            seconds = statistics.median(encode[backend])
            print(f"  {backend:9} encode : {n / seconds:7.1f} docs/s  {base / seconds:.2f}x")
        for backend in indexing:
            seconds = statistics.median(indexed[backend])
            label = f"{backend} (default)" if backend == DEFAULT else backend
            print(f"  ragloom indexing, {label:20}: {n / seconds:7.1f} docs/s  {base / seconds:.2f}x"
                  f"  outside the model {100 * statistics.median(outside[backend]):.1f}%")
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
            config = RAGConfig(embedding={"provider": "local", "backend": backend},
                               vector_store={"provider": "memory"})
            with RAGEngine(config, folder) as engine:
                index_dataset(engine, dataset)
                scores = {s.mode: s.ndcg for s in evaluate(engine, dataset, ("dense", "hybrid"))}
        print(f"  {backend:9} cosine mean {cosines.mean():.5f} min {cosines.min():.5f}  "
              f"nDCG@10 dense {scores['dense']:.4f} hybrid {scores['hybrid']:.4f}", flush=True)


if __name__ == "__main__":
    main()
