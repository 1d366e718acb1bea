"""What the part lookup (``retrieval.part_lookup``) costs a search: every question of the
application sets searched on its built index with the lookup off and at its default, the
search's own stages timed (``search_detailed``'s timings without ``embed_query``), after one
warm-up pass.
Prints per setting p50 / p95 / mean / max milliseconds and how many questions ran a lookup.

    python bench/part_lookup_latency.py --work-dir /work/ml --apps linkding [--repeat 3]

The index is ``<work-dir>/<app>/ragloom`` as bench/app_search.py builds it (opened read-only).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from app_questions import load_app_set  # noqa: E402

import ragloom.retrieval.searcher as searcher_module  # noqa: E402
from ragloom import RAGConfig, RAGEngine  # noqa: E402
from ragloom.config.tables import RetrievalConfig  # noqa: E402


def _milliseconds(engine: RAGEngine, question: str) -> float:
    timings = engine.search_detailed(question, top_k=10).timings_ms
    return sum(value for stage, value in timings.items() if stage != "embed_query")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work-dir", type=Path, required=True)
    parser.add_argument("--apps", nargs="+", required=True)
    parser.add_argument("--apps-dir", type=Path,
                        default=Path(os.environ.get("RAGLOOM_APPSETS", "/work/appsets")))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    looked: list[str] = []
    real = searcher_module.look_up_parts
    searcher_module.look_up_parts = lambda query, *rest: looked.append(query) or real(query, *rest)
    medians: dict[int, dict[str, float]] = {}
    for setting in (0, RetrievalConfig().part_lookup):
        each: dict[str, list[float]] = {}
        ran: set[str] = set()
        for app in args.apps:
            questions = [q.text for q in load_app_set(app).questions]
            config = RAGConfig(index_dir=str(args.work_dir / app / "ragloom"),
                               retrieval={"part_lookup": setting})
            with RAGEngine(config, args.apps_dir / app, read_only=True) as engine:
                for question in questions:  # warm-up: query vectors, BM25 postings, caches
                    _milliseconds(engine, question)
                looked.clear()
                for _ in range(args.repeat):
                    for question in questions:
                        each.setdefault(question, []).append(_milliseconds(engine, question))
                ran.update(looked)
        times = [value for values in each.values() for value in values]
        medians[setting] = {question: statistics.median(values) for question, values in each.items()}
        cut = sorted(times)
        print(f"part_lookup={setting}: {len(times)} searches, p50 {statistics.median(times):.1f} ms, "
              f"p95 {cut[int(0.95 * (len(cut) - 1))]:.1f} ms, mean {statistics.fmean(times):.1f} ms, "
              f"max {cut[-1]:.1f} ms; lookups ran for {len(ran)} questions", flush=True)
        if setting and ran:
            extra = [medians[setting][q] - medians[0][q] for q in ran]
            print(f"  those questions: median {statistics.median(medians[0][q] for q in ran):.1f} ms "
                  f"without, {statistics.median(medians[setting][q] for q in ran):.1f} ms with "
                  f"(each: {', '.join(f'{value:+.1f}' for value in extra)} ms)", flush=True)

if __name__ == "__main__":
    main()
