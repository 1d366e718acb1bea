"""The query cache: what a search's ``embed_query`` stage costs for a new query and for
one asked again, with the cache writing every new query at once (``write_batch = 1``),
a batch at a time (the default, ``QUERY_WRITE_BATCH``), and with ``[rag.embedding] cache = false``;
and how many provider calls the repeated queries made (target 0), also after reopening.

Index: 20 small notes, hash embedder (a free provider: the figures are the cache's own
cost), TurboQuant store. Queries: N distinct questions, each searched twice.

    python bench/query_cache.py [--queries 300]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from ragloom import RAGConfig, RAGEngine
from ragloom.embeddings import query_cache
from ragloom.embeddings.hashing import HashEmbeddingProvider


class Counting(HashEmbeddingProvider):
    def __init__(self) -> None:
        super().__init__()
        self.queries = 0

    def _embed_batch(self, texts, task):  # type: ignore[no-untyped-def]
        self.queries += len(texts) if task == "query" else 0
        return super()._embed_batch(texts, task)


def run(label: str, cache: bool, write_batch: int, questions: list[str]) -> None:
    query_cache.QUERY_WRITE_BATCH = write_batch  # read when an engine opens its query cache
    with tempfile.TemporaryDirectory() as root:
        for number in range(20):
            Path(root, f"n{number}.md").write_text(f"# Note {number}\nwing {number} and its lift\n")
        config = RAGConfig.model_validate({"embedding": {"provider": "hash", "cache": cache},
                                           "vector_store": {"provider": "turboquant"}})
        provider = Counting()
        with RAGEngine(config, root, embedding_provider=provider) as engine:
            engine.index_directory()
            new = [engine.search_detailed(q).timings_ms["embed_query"] for q in questions]
            paid = provider.queries
            again = [engine.search_detailed(q).timings_ms["embed_query"] for q in questions]
            repeated = provider.queries - paid
        reopened = Counting()
        with RAGEngine(config, root, embedding_provider=reopened) as engine:
            for question in questions:
                engine.search(question)
        print(f"| {label} | {statistics.median(new):.3f} ms | {statistics.median(again):.3f} ms "
              f"| {repeated} | {reopened.queries} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queries", type=int, default=300)
    args = parser.parse_args()
    questions = [f"question about wing {number} and its lift" for number in range(args.queries)]
    default = query_cache.QUERY_WRITE_BATCH
    print("| cache | new query, p50 | asked again, p50 | provider calls asked again "
          "| after reopening |")
    print("| --- | --- | --- | --- | --- |")
    run("written at once (write_batch 1)", True, 1, questions)
    run(f"written {default} at a time (default)", True, default, questions)
    run("embedding.cache = false", False, default, questions)


if __name__ == "__main__":
    main()
