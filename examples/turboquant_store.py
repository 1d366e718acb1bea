"""A compressed index: the TurboQuant store keeps 384-d vectors in 192 bytes (4 bits).

    python examples/turboquant_store.py [FOLDER] [QUERY]
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ragloom import RAGConfig, RAGEngine

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main() -> None:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "src"
    query = sys.argv[2] if len(sys.argv) > 2 else "lloyd max codebook"
    provider = os.environ.get("RAGLOOM_EXAMPLE_PROVIDER", "local")
    config = RAGConfig(embedding={"provider": provider},
                       vector_store={"provider": "turboquant", "turboquant": {"bits": 4, "refine_bits": 3}})
    with RAGEngine(config, base_dir=folder) as engine:
        report = engine.index_directory()
        store = engine.store
        print(f"{engine.count()} chunks ({report.chunks_embedded} embedded now); "
              f"{store.bytes_per_vector():.0f} bytes per vector vs {4 * engine.provider.dimension} "
              f"for float32")  # type: ignore[attr-defined]
        for result in engine.search(query, top_k=5):
            print(f"  {result.score:.3f}  {result.metadata['path']}  {result.metadata.get('symbol', '')}")


if __name__ == "__main__":
    main()
