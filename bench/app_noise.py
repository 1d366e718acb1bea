"""Noise on whole application checkouts (issue 36): what the noise rules skip, how the
test prior (``retrieval.test_weight``) moves nDCG@10 / hit@5 and the test files in the top
5 of questions not about tests, and which natural questions the relevance gate empties.

Uses the application dev sets (bench/app_sets/*.toml, graded by bench/app_questions.py)
and their checkouts in ``<apps-dir>/<name>`` (see bench/app_search.py). Each app is indexed
with ragloom's defaults into ``<work-dir>/<name>`` (an ``embeddings.sqlite`` put there
first, e.g. copied from bench/app_search.py's work dir, saves embedding again); searches
run hybrid, top 10, gate off, once per test weight; the gate columns say, per gate rule,
how many questions it would have emptied.

    nice -n 10 python bench/app_noise.py [--apps solidtime babybuddy miniflux]
        [--weights 1.0 0.7 0.5] [--work-dir /tmp/ragloom-app-noise]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from app_questions import app_set_names, hit_at, is_test_path, load_app_set, ndcg_at  # noqa: E402
from relevance_gate import LEXICAL_RULES, OFF_TOPIC, gate_signals, passes  # noqa: E402

from ragloom import RAGConfig, RAGEngine  # noqa: E402
from ragloom.indexing.skip_reasons import count_by_reason  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--apps", nargs="+", default=app_set_names())
    parser.add_argument("--apps-dir", default=os.environ.get("RAGLOOM_APPSETS", "/work/appsets"))
    parser.add_argument("--work-dir", default="/tmp/ragloom-app-noise")
    parser.add_argument("--weights", nargs="+", type=float, default=[1.0, 0.7, 0.5])
    args = parser.parse_args()
    for name in args.apps:
        app = load_app_set(name)
        root = Path(args.apps_dir) / name
        index = Path(args.work_dir) / name
        engine = RAGEngine(RAGConfig(index_dir=str(index), relevance_gate=False), root)
        report = engine.index_directory()
        print(f"\n{name}: {engine.count()} chunks; skipped {report.files_skipped} files: "
              f"{dict(count_by_reason(report.skipped))}", flush=True)
        for weight in args.weights:
            engine.config.retrieval.test_weight = weight
            ndcg, hits, tests_top5, asked = [], [], 0, 0
            for question in app.questions:
                found = engine.search(question.text, 10)
                spans = [(str(r.metadata["path"]), int(r.metadata.get("start_line", 0)),
                          int(r.metadata.get("end_line", 0))) for r in found]
                ndcg.append(ndcg_at(spans, question.gold))
                hits.append(hit_at(spans, question.gold))
                if not question.about_tests:
                    asked += 1
                    tests_top5 += sum(is_test_path(path) for path, _, _ in spans[:5])
            print(f"  test_weight {weight}: nDCG@10 {sum(ndcg) / len(ndcg):.3f}, hit@5 "
                  f"{sum(hits) / len(hits):.3f}, test files in the top 5 of {asked} questions "
                  f"not about tests: {tests_top5}", flush=True)
        engine.config.retrieval.test_weight = 0.7
        gate_rows(engine, [q.text for q in app.questions], OFF_TOPIC)
        engine.close()


def gate_rows(engine: RAGEngine, questions: list[str], off_topic: list[str]) -> None:
    """The lowest best cosines of real questions; then per gate rule, how many real
    questions it empties and how many off-topic ones it silences."""
    real = [gate_signals(engine, q) for q in questions]
    off = [gate_signals(engine, q) for q in off_topic]
    lowest = sorted(zip(real, questions))[:5]
    print("  lowest best cosines of real questions: " + "; ".join(
        f"{q!r} {c:.3f} (words {lex:.2f})" for (c, lex), q in lowest))
    for gate, floor, share in LEXICAL_RULES:
        rule = f"cosine {gate}" + (f" or (cosine {floor} and words {share})" if floor else "")
        emptied = sum(not passes(p, gate, floor, share) for p in real)
        silent = sum(not passes(p, gate, floor, share) for p in off)
        print(f"  {rule:<44} real emptied {emptied}/{len(real)}, off-topic silent "
              f"{silent}/{len(off)}")

if __name__ == "__main__":
    main()
