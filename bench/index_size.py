"""Bytes on disk per chunk for each store, by part (store, BM25, manifest, embedding cache).

Indexes the same folder (default: the installed ``rich`` package's sources) once per store
with default settings except the embedder: the hash embedder (384-d like the default
model; sizes do not depend on the vectors' values, and the model would take minutes).
Each store gets a fresh copy of the folder so nothing is shared.

    python bench/index_size.py [--source DIR] [--stores chroma turboquant memory]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

from ragloom import RAGConfig, RAGEngine
from ragloom.stores.registry import store_path

try:
    from ragloom.indexing.disk_usage import PARTS, disk_usage
except ImportError:  # a version before ``ragloom status`` showed parts: same rules here
    PARTS = ("store", "bm25", "manifest", "embedding_cache", "other")

    def disk_usage(index_dir: Path, store_dir: Path | None) -> dict[str, int]:
        usage = dict.fromkeys(PARTS, 0)
        for file in (f for f in index_dir.rglob("*") if f.is_file()):
            top = file.relative_to(index_dir).parts[0]
            part = ("store" if store_dir is not None and store_dir in file.parents else
                    "bm25" if top.startswith("bm25_") else "manifest" if top.startswith("manifest_")
                    else "embedding_cache" if top.startswith("embeddings.sqlite") else "other")
            usage[part] += file.stat().st_size
        return usage


def default_source() -> Path:
    import rich

    return Path(rich.__file__).parent


def measure(source: Path, store: str, work: Path) -> tuple[int, dict[str, int]]:
    project = work / store
    shutil.copytree(source, project, ignore=shutil.ignore_patterns("__pycache__"))
    config = RAGConfig.model_validate({"embedding": {"provider": "hash"},
                                       "vector_store": {"provider": store}})
    with RAGEngine(config, project) as engine:
        for _ in range(5):  # CPython 3.11's ast.parse from several threads can fail spuriously
            try:                # (gh-106905); a rerun indexes only what is left
                engine.index_directory()
                break
            except SystemError:
                continue
        chunks = engine.count()
    index_dir = project / config.index_dir
    return chunks, disk_usage(index_dir, store_path(config, project))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=None)
    parser.add_argument("--stores", nargs="+", default=["chroma", "turboquant", "memory"])
    args = parser.parse_args()
    source = args.source or default_source()
    text = sum(f.stat().st_size for f in source.rglob("*") if f.is_file() and "__pycache__" not in f.parts)
    print(f"source: {source} ({text / 1e6:.2f} MB)")
    print(f"{'store':<11}{'chunks':>7}{'total/chunk':>13}" + "".join(f"{p:>17}" for p in PARTS))
    with tempfile.TemporaryDirectory() as work:
        for store in args.stores:
            chunks, usage = measure(source, store, Path(work))
            per = {part: size / max(chunks, 1) for part, size in usage.items()}
            print(f"{store:<11}{chunks:>7}{sum(per.values()):>11.0f} B"
                  + "".join(f"{per[p]:>15.0f} B" for p in PARTS))


if __name__ == "__main__":
    main()
