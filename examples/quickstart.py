"""Index a folder with the local model and the default store (TurboQuant), search it, print
the context block.

    python examples/quickstart.py [FOLDER] [QUERY]

Defaults: this repository's docs/ folder and a question about it. The index lives in
FOLDER/.ragloom; run it twice to see the second indexing skip every unchanged file.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ragloom import RAGConfig, RAGEngine, format_context

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the default model ships in a package


def main() -> None:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "docs"
    query = sys.argv[2] if len(sys.argv) > 2 else "How does ragloom fuse BM25 with dense retrieval?"
    provider = os.environ.get("RAGLOOM_EXAMPLE_PROVIDER", "local")  # "hash" runs without torch
    config = RAGConfig(embedding={"provider": provider})  # the default store: "turboquant"
    with RAGEngine(config, base_dir=folder) as engine:
        report = engine.index_directory()
        print(f"indexed {report.files_indexed} files ({report.files_unchanged} unchanged), "
              f"{engine.count()} chunks in {report.seconds:.1f}s")
        results = engine.search(query, top_k=3)
        for result in results:
            meta = result.metadata
            print(f"  {result.score:.3f}  {meta['path']}:{meta['start_line']}-{meta['end_line']}"
                  f"  {meta.get('heading_path') or meta.get('symbol') or ''}")
        print()
        print(format_context(results, token_budget=600))


if __name__ == "__main__":
    main()
