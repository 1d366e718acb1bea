"""Retrieval for follow-up questions: the raw follow-up vs the rule-based standalone query
(``ragloom.apps.conversation.standalone_query``), nDCG@10 on a multi-turn set built from the
Cranfield queries, and what the rewrite adds to each search's latency.

The set: each Cranfield query with at least four content words is split in two turns.
The first turn asks about the query's last content words ("tell me about <subject>"),
the follow-up is the query with those words replaced by "it" (the way people ask a
second question); the follow-up is judged with the original query's relevance
judgements. The first turn's answer is not needed by either method.

    python bench/conversation.py [--provider local|hash] [--work-dir DIR]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import tempfile
import time
from pathlib import Path

from _data import CRANFIELD

from ragloom import RAGConfig, RAGEngine
from ragloom.apps.conversation import standalone_query
from ragloom.apps.eval import index_dataset, load_beir, ndcg_at_k, ranked_documents
from ragloom.integrations.base import Turn
from ragloom.retrieval.tokenize import STOPWORDS

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_'-]*")


def two_turns(query: str) -> tuple[str, str] | None:
    """(first turn, follow-up) for ``query``, or None when it has too few content words."""
    words = _WORD.findall(query)
    content = [i for i, word in enumerate(words) if len(word) > 2 and word.lower() not in STOPWORDS]
    if len(content) < 4:
        return None
    subject = content[len(content) // 2:]
    first = "tell me about " + " ".join(words[i] for i in subject)
    cut = subject[0]
    follow_up = " ".join(word for i, word in enumerate(words[:cut]) if i not in subject) + " it"
    return first, follow_up


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--provider", default="local", choices=["local", "hash"])
    parser.add_argument("--work-dir", help="keep the index here for reruns")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    dataset = load_beir(CRANFIELD)
    work = Path(args.work_dir or tempfile.mkdtemp(prefix="ragloom-conversation-"))
    config = RAGConfig(embedding={"provider": args.provider}, vector_store={"provider": "turboquant"},
                       relevance_gate=False)
    rows = {"raw follow-up": [], "standalone (rules)": [], "original query": []}
    search_ms: dict[str, list[float]] = {"raw follow-up": [], "standalone (rules)": []}
    rewrite_us: list[float] = []
    examples = []
    with RAGEngine(config, work) as engine:
        index_dataset(engine, dataset)
        for query_id, text in dataset.queries.items():
            turns = two_turns(text)
            if turns is None:
                continue
            first, follow_up = turns
            history = [Turn("user", first), Turn("assistant", "(an answer)")]
            started = time.perf_counter()
            rewritten = standalone_query(follow_up, history)
            rewrite_us.append((time.perf_counter() - started) * 1e6)
            if len(examples) < 3:
                examples.append((first, follow_up, rewritten))
            judgements = dataset.qrels[query_id]
            for name, query in (("raw follow-up", follow_up), ("standalone (rules)", rewritten),
                                ("original query", text)):
                started = time.perf_counter()
                ranked = ranked_documents(engine, engine.search(query, top_k=10))
                if name in search_ms:
                    search_ms[name].append((time.perf_counter() - started) * 1000)
                rows[name].append(ndcg_at_k(ranked, judgements, 10))
    print(f"{len(rows['raw follow-up'])} two-turn conversations from {len(dataset.queries)} Cranfield "
          f"queries; {args.provider} embedder, hybrid search (defaults)")
    for first, follow_up, rewritten in examples:
        print(f"  turn 1: {first!r}\n  follow-up: {follow_up!r}\n  searched: {rewritten!r}")
    print(f"{'query searched':22} {'nDCG@10':>8}")
    for name, scores in rows.items():
        print(f"{name:22} {statistics.fmean(scores):8.4f}")
    print(f"rewrite: median {statistics.median(rewrite_us):.1f} us per follow-up; search p50 "
          f"{statistics.median(search_ms['raw follow-up']):.2f} ms raw vs "
          f"{statistics.median(search_ms['standalone (rules)']):.2f} ms standalone")


if __name__ == "__main__":
    main()
