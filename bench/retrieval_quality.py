"""Every candidate retrieval default on every dev set, in one table (nDCG@10, hybrid).

Dev sets: Cranfield (BEIR, each abstract added with add_documents under its id: chunked
as plain text, with the source id as header) and two code-search sets built from
the standard library (bench/code_search.py: docstrings removed, query = a removed
docstring's first sentence). Each set is indexed once with the local all-MiniLM-L6-v2
model and default chunking (the work folder keeps index and embedding cache, so reruns
are fast); then each candidate's retrieval settings are scored on it. The pick is the
candidate with the best worst case over the sets, not the best mean on one, among those
that beat dense alone on every set; a candidate with feedback is eligible only if
feedback lowers no set.

    python bench/retrieval_quality.py [--work-dir DIR] [--dataset BEIR_DIR] [--embed-header on|off]
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
from code_search import as_dataset, code_search_sets  # noqa: E402

from ragloom import RAGConfig, RAGEngine  # noqa: E402
from ragloom.apps.eval import Dataset, evaluate, index_dataset, load_beir  # noqa: E402
from ragloom.config.tables import RetrievalConfig  # noqa: E402


#: Candidate defaults: retrieval settings (hybrid on unless "dense" says otherwise).
def _score(dense: float = 1.0, sparse: float = 1.0, depth: int = 100, feedback: bool = False,
           fusion: str = "score") -> dict[str, Any]:
    return {"fusion": fusion, "dense_weight": dense, "sparse_weight": sparse, "candidate_k": depth,
            "feedback": feedback}


CANDIDATES: dict[str, dict[str, Any]] = {
    "dense only": {"dense": True},
    "rrf, feedback, depth 100 (old)": _score(fusion="rrf", feedback=True),
    "rrf, depth 100": _score(fusion="rrf"),
    "rrf, depth 20": _score(fusion="rrf", depth=20),
    "score, feedback, depth 100": _score(feedback=True),
    "score, depth 100": _score(),
    "score, depth 20": _score(depth=20),
    "score, depth 50": _score(depth=50),
    "score 0.6/0.4, depth 50": _score(0.6, 0.4, depth=50),
    "score 0.6/0.4, depth 100": _score(0.6, 0.4),
    "score 0.6/0.4, depth 200 (default)": _score(0.6, 0.4, depth=200),
    "score 0.6/0.4, feedback, depth 100": _score(0.6, 0.4, feedback=True),
    "score 0.7/0.3, depth 100": _score(0.7, 0.3),
    "default, no exact names": {"exact_names": False},
    "default, no part merging": {"merge_parts": False},
    "default, no per-file cap": {"max_per_file": 0},
    "default, 2 per file": {"max_per_file": 2},
    "default, 3 per file": {"max_per_file": 3},
    "default, no import prior": {"import_weight": 1.0},
    "default, import weight 0.5": {"import_weight": 0.5},
    "default, test weight 0.3": {"test_weight": 0.3},
    "default, test weight 0.7": {"test_weight": 0.7},
    "default, no test prior": {"test_weight": 1.0},
    "default, no wiring prior": {"wiring_weight": 1.0},
    "default, no part lookup": {"part_lookup": 0},
}


def eligible(name: str, table: dict[str, list[float]]) -> bool:
    """Hybrid candidates that beat dense alone on every set; one with feedback only if
    feedback lowers no set against the same settings without it."""
    if name == "dense only" or name.startswith("default, no"):
        return False  # the baseline, and ablations of what the default adds
    if "per file" in name or "weight" in name or "prior" in name:
        return False  # the per-file cap and priors are picked among their own rows
    if "dense only" in table and not all(h > d for h, d in zip(table[name], table["dense only"])):
        return False
    settings = CANDIDATES[name]
    if not settings.get("feedback"):
        return True
    twins = [other for other, values in CANDIDATES.items() if other in table
             and values == {**settings, "feedback": False}]
    return all(all(a >= b for a, b in zip(table[name], table[twin])) for twin in twins)


def dev_sets(work_dir: Path, beir: Path, embed_header: bool | None = None
             ) -> list[tuple[Dataset, RAGEngine]]:
    """Each dev set with an engine holding its index (``embed_header`` None: the default;
    indexes with the header live in ``work_dir`` + "-header")."""
    config = RAGConfig(embedding={"provider": "local"}, vector_store={"provider": "chroma"})
    if embed_header is not None:
        config.chunking.embed_header = embed_header
    if getattr(config.chunking, "embed_header", False):  # older ragloom (before-rows) has none
        work_dir = work_dir.with_name(work_dir.name + "-header")
    sets = []
    cranfield = load_beir(beir)
    engine = RAGEngine(config, work_dir / cranfield.name)
    index_dataset(engine, cranfield)
    sets.append((cranfield, engine))
    for code_set in code_search_sets(work_dir / "sources"):
        engine = RAGEngine(config.model_copy(deep=True), work_dir / "sources" / code_set.name)
        engine.index_directory()
        sets.append((as_dataset(engine, code_set), engine))
    return sets


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work-dir", default="/tmp/ragloom-devsets")
    parser.add_argument("--dataset", default=str(CRANFIELD), help="the BEIR dev set")
    parser.add_argument("--candidates", nargs="*", default=list(CANDIDATES))
    parser.add_argument("--embed-header", choices=("on", "off"),
                        help="index file chunks with or without the 'path: symbol' header "
                             "(default: ragloom's default)")
    args = parser.parse_args()
    header = None if args.embed_header is None else args.embed_header == "on"
    sets = dev_sets(Path(args.work_dir), Path(args.dataset), header)
    for dataset, engine in sets:
        print(f"{dataset.name}: {engine.store.count()} chunks, {len(dataset.queries)} judged queries")
    names = [dataset.name for dataset, _ in sets]
    print(f"\n{'candidate (nDCG@10)':<32}" + "".join(f"{n:>17}" for n in names)
          + f"{'worst':>8}{'mean':>8}")
    table: dict[str, list[float]] = {}
    for candidate in args.candidates:
        settings = dict(CANDIDATES[candidate])
        mode = "dense" if settings.pop("dense", False) else "hybrid"
        row = []
        for dataset, engine in sets:
            engine.config.retrieval = RetrievalConfig(**settings)
            row.append(evaluate(engine, dataset, (mode,))[0].ndcg)
        table[candidate] = row
        print(f"{candidate:<32}" + "".join(f"{v:>17.4f}" for v in row)
              + f"{min(row):>8.4f}{sum(row) / len(row):>8.4f}", flush=True)
    hybrid = {name: row for name, row in table.items() if eligible(name, table)}
    best = max(hybrid, key=lambda name: (min(hybrid[name]), sum(hybrid[name])), default=None)
    print(f"\nbest worst case (beating dense on every set; feedback only where it lowers no "
          f"set): {best or 'none of these candidates'}")
    for _, engine in sets:
        engine.close()


if __name__ == "__main__":
    main()
