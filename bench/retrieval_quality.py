"""What each retrieval technique adds, on a BEIR collection (default: Cranfield).

Indexes the collection once with the local all-MiniLM-L6-v2 model (the work folder keeps
the index and embedding cache, so reruns are fast), then scores variants that switch one
technique at a time: stemming, identifier splitting, fusion method and weights,
pseudo-relevance feedback, MMR. Prints nDCG@10 / Recall@10 / MRR@10 for each.

    python bench/retrieval_quality.py [--dataset DIR] [--work-dir DIR]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import CRANFIELD  # noqa: E402

from ragloom import RAGConfig, RAGEngine  # noqa: E402
from ragloom.eval import evaluate, format_scores, index_dataset, load_beir  # noqa: E402

VARIANTS: dict[str, dict[str, Any]] = {
    "defaults": {},
    "no feedback": {"feedback": False},
    "no feedback, no stemming": {"feedback": False, "stemming": False},
    "no feedback, no stopwords": {"feedback": False, "stopwords": False},
    "no feedback, score fusion": {"feedback": False, "fusion": "score"},
    "score fusion": {"fusion": "score"},
    "score fusion dense 0.7": {"fusion": "score", "dense_weight": 0.7, "sparse_weight": 0.3},
    "feedback weight 0.5": {"feedback_weight": 0.5},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default=str(CRANFIELD))
    parser.add_argument("--work-dir", default="/tmp/ragloom-quality")
    parser.add_argument("--variants", nargs="*", default=list(VARIANTS))
    args = parser.parse_args()
    dataset = load_beir(args.dataset)
    print(f"{dataset.name}: {len(dataset.corpus)} documents, {len(dataset.queries)} judged queries")
    for name in args.variants:
        retrieval = {**VARIANTS[name]}
        config = RAGConfig(embedding_provider="local", vector_store={"provider": "chroma"},
                           retrieval=retrieval)
        with RAGEngine(config, args.work_dir) as engine:
            index_dataset(engine, dataset)
            modes = ("dense", "sparse", "hybrid", "hybrid+mmr") if name == "defaults" else (
                ("sparse", "hybrid"))
            print(f"\n== {name}: {retrieval or 'ragloom defaults'}")
            print(format_scores(evaluate(engine, dataset, modes)), flush=True)


if __name__ == "__main__":
    main()
