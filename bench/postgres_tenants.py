"""Tenants sharing one Postgres table at scale: does every tenant, however small, get
``top_k`` results with its recall, and what does the scope cost beside an untenanted search?

N random 384-d unit vectors (``postgres_scale.make_data``: clustered around 2,000 centres;
**not real embeddings**) are shared by 100 tenants: ``t-1pct`` holds 1% of the rows,
``t-tiny`` 0.01%, and 98 others the rest in Zipf proportions (the largest about 19%, the
smallest about 0.2%). Rows are written through ``TenantStore`` (ids ``<tenant>::c<i>``,
metadata ``tenant``), then the HNSW index is built. Each query is one of the tenant's own
vectors plus fresh noise; recall@10 is against exact search over that tenant's vectors
(NumPy), and "rows" counts what the search returned (``top_k`` = 10, or the tenant's
size if smaller). "search" is how the store ran it (``search.Scopes.route``: exact
ranking, or the HNSW walk and its width). Two more scopes stand for larger tenants (the
largest two, and the largest eleven, as one ``$in`` filter), and a filter every row passes
for a table with one tenant; the untenanted line searches the whole table, unfiltered,
with that line's queries. ``--compare`` instead searches the named tenants (``all``: every
row, unfiltered) each fixed way of ``--widths`` (a walk that wide; 0 ranks exactly), the
ways taking turns query by query.

    nice -n 10 python bench/postgres_tenants.py [--size 1000000] [--queries 50]
        [--work-dir DIR] [--url URL] [--ef-search 100] [--every 5]
        [--compare t01 t02 all --widths 518 1000 0]

With ``--work-dir`` the server's data stays there and a table loaded before is searched
again without reloading.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import postgres_scale as scale  # noqa: E402

from ragloom.stores.postgres import PostgresSettings, Tables, search  # noqa: E402
from ragloom.stores.postgres.schema import create_statements  # noqa: E402
from ragloom.stores.postgres.search import EXACT_SCOPE_ROWS  # noqa: E402
from ragloom.stores.postgres.store import PostgresStore  # noqa: E402
from ragloom.stores.postgres.where import where_clause  # noqa: E402
from ragloom.stores.tenant import TenantStore  # noqa: E402
from ragloom.tenancy import TENANT_KEY  # noqa: E402

TENANTS = 100
K = 10


def tenant_of_rows(size: int, seed: int = 7) -> tuple[np.ndarray, list[str]]:
    """Each row's tenant index and the tenant names: ``t-1pct`` 1%, ``t-tiny`` 0.01% (at
    least one row), 98 more in Zipf proportions of the rest, rows shuffled among them."""
    names = ["t-1pct", "t-tiny"] + [f"t{rank:02d}" for rank in range(1, TENANTS - 1)]
    counts = [size // 100, max(1, size // 10_000)]
    rest = size - sum(counts)
    weights = 1.0 / np.arange(1, TENANTS - 1)
    shares = np.floor(rest * weights / weights.sum()).astype(int)
    shares[0] += rest - shares.sum()
    counts += shares.tolist()
    owner = np.repeat(np.arange(TENANTS), counts)
    np.random.default_rng(seed).shuffle(owner)
    return owner, names


def load(store: PostgresStore, vectors: np.ndarray, owner: np.ndarray, names: list[str]) -> dict[str, float]:
    tables = store.tables
    definition, *comment = [sql for sql in create_statements(tables, scale.DIM, store.settings)
                            if "_embedding_hnsw" in sql]  # the index and its ragloom marker
    store.writer.execute("bench", f'DROP INDEX IF EXISTS "{tables.schema}"."{tables.table}_embedding_hnsw"')
    started = time.perf_counter()
    for tenant, name in enumerate(names):
        rows = np.flatnonzero(owner == tenant)
        view = TenantStore(store, name)
        for start in range(0, len(rows), scale.BATCH):
            part = rows[start:start + scale.BATCH]
            view.upsert([f"c{i}" for i in part], vectors[part], [""] * len(part),
                        [{"path": f"src/file{i % 5000}.py", "source": "file"} for i in part])
    inserted = time.perf_counter() - started
    print(f"#   {len(owner):,} rows in {inserted:.0f} s", flush=True)
    started = time.perf_counter()
    with store.writer.cursor("bench") as cursor:
        cursor.execute(f"SET maintenance_work_mem = '{scale.MAINTENANCE_WORK_MEM}'")
        cursor.execute("SET max_parallel_maintenance_workers = 1")
        cursor.execute(definition)
        for statement in comment:
            cursor.execute(statement)
    build = time.perf_counter() - started
    print(f"#   HNSW built in {build:.0f} s", flush=True)
    store.writer.execute("bench", f"VACUUM ANALYZE {tables.chunks}")
    return {"insert rows/s": len(owner) / inserted, "HNSW build s": build}


def measure(way: Any, vectors: np.ndarray, rows: np.ndarray, probe: np.ndarray) -> dict[str, float]:
    """p50/p95 latency, recall@10 and the fewest rows returned over ``probe``."""
    return measure_each([way], vectors, rows, probe)[0]


def measure_each(ways: list[Any], vectors: np.ndarray, rows: np.ndarray,
                 probe: np.ndarray) -> list[dict[str, float]]:
    """``measure`` for each of ``ways`` (searches), taking turns query by query (the machine's
    load then weighs on each alike)."""
    own = vectors[rows]
    for way in ways:
        way(probe[0])  # warm
    wanted = min(K, len(rows))
    figures: list[tuple[list[float], list[float], list[int]]] = [([], [], []) for _ in ways]
    for query in probe:
        truth = {f"c{rows[i]}" for i in np.argsort(-(own @ query), kind="stable")[:wanted]}
        for way, (times, recalls, returned) in zip(ways, figures):
            ms, results = scale.timed(lambda q=query, w=way: w(q))
            times.append(ms)
            found = {r.id.rpartition("::")[2] for r in results}
            recalls.append(len(found & truth) / wanted)
            returned.append(len(results))
    return [{"p50": statistics.median(times), "p95": sorted(times)[int(0.95 * (len(times) - 1))],
             "recall": statistics.fmean(recalls), "lowest": min(recalls), "rows": min(returned),
             "wanted": wanted}
            for times, recalls, returned in figures]


def fixed(store: PostgresStore, filters: Any, width: int) -> Any:
    """A search of ``filters``' scope by the HNSW walk ``width`` wide, or ranked exactly
    (``width`` 0), whatever the store would choose."""
    where, params = where_clause(filters)
    chunks = store.tables.chunks

    def run(query: np.ndarray) -> list[SimpleNamespace]:
        vector = np.asarray(query, dtype=np.float32)
        with store.reader.cursor("bench") as cursor:
            cursor.execute("BEGIN")
            if width:
                cursor.execute("SELECT set_config('hnsw.ef_search', %s, true)", (str(width),))
                cursor.execute(search.walk_sql(chunks, where), [vector, *params, vector, K],
                               prepare=False)  # as the store runs it
            else:
                cursor.execute(search.exact_sql(chunks, where), [vector, *params, K], prepare=False)
            found = [SimpleNamespace(id=row[0]) for row in cursor.fetchall()]
            cursor.execute("COMMIT")
        return found
    return run


def compare(store: PostgresStore, vectors: np.ndarray, owner: np.ndarray, names: list[str],
            args: argparse.Namespace) -> None:
    """Each of ``--compare``'s scopes (a tenant, or ``all`` for every row unfiltered)
    searched every way of ``--widths`` (0: exact), the ways taking turns query by query."""
    print(f"\n## Fixed ways, {args.queries} queries each, taking turns\n")
    print("| scope | chunks | search | p50 | recall@10 | lowest query's recall | fewest rows |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for scope in args.compare:
        filters = None if scope == "all" else {TENANT_KEY: scope}
        rows = np.arange(len(owner)) if scope == "all" else np.flatnonzero(owner == names.index(scope))
        probe = scale.queries(vectors[rows], args.queries, seed=len(rows))
        ways = [fixed(store, filters, width) for width in args.widths]
        for width, got in zip(args.widths, measure_each(ways, vectors, rows, probe)):
            print(f"| {scope} | {len(rows):,} | {f'walk {width:,} wide' if width else 'exact'} | "
                  f"{got['p50']:.1f} ms | {got['recall']:.3f} | {got['lowest']:.1f} | "
                  f"{got['rows']:.0f} of {got['wanted']:.0f} |", flush=True)
    print(f"(load average {os.getloadavg()[0]:.1f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--work-dir", type=Path)
    parser.add_argument("--url")
    parser.add_argument("--ef-search", type=int, default=scale.EF_SEARCH)
    parser.add_argument("--every", type=int, default=5, help="queries per tenant in the pass "
                        "over every tenant")
    parser.add_argument("--compare", nargs="*", default=[], help="instead of the tables: "
                        "these tenants (or 'all', unfiltered) searched each way of --widths")
    parser.add_argument("--widths", nargs="*", type=int, default=[518, 1000, 0],
                        help="walk widths for --compare (0: exact ranking)")
    args = parser.parse_args()
    vectors = scale.make_data(args.size, with_texts=False)[0]
    owner, names = tenant_of_rows(args.size)
    table = f"tenants_{args.size}"
    with scale.server(args.url, args.work_dir) as pg:
        pg.execute("CREATE SCHEMA IF NOT EXISTS bench")
        loaded = pg.execute(f"SELECT to_regclass('bench.{table}') IS NOT NULL")[0][0] and pg.execute(
            f"SELECT count(*) FROM bench.{table}")[0][0] == args.size and pg.execute(
            f"SELECT count(*) FROM pg_indexes WHERE indexname = '{table}_embedding_hnsw'")[0][0] == 1
        if not loaded:
            for name in ("", "_info", "_postings", "_lengths", "_terms", "_stats", "_symbols", "_files"):
                pg.execute(f"DROP TABLE IF EXISTS bench.{table}{name} CASCADE")
        settings = PostgresSettings(schema="bench", table=table, ef_search=args.ef_search)
        store = PostgresStore(pg.url, Tables("bench", table), scale.SPEC, settings)
        try:
            figures = {} if loaded else load(store, vectors, owner, names)
            if args.compare:
                compare(store, vectors, owner, names, args)
                return
            print(f"\n## {args.size:,} chunks, {TENANTS} tenants, ef_search {args.ef_search}, "
                  f"{args.queries} queries each (random vectors)\n")
            print("| scope | chunks | share | search | p50 | p95 | recall@10 | fewest rows returned |")
            print("| --- | --- | --- | --- | --- | --- | --- | --- |")
            sizes = np.bincount(owner, minlength=TENANTS)
            walked = [t for t in range(TENANTS) if sizes[t] > EXACT_SCOPE_ROWS]
            ranked = [t for t in range(TENANTS) if sizes[t] <= EXACT_SCOPE_ROWS]
            # 1%, 0.01%, the largest, the smallest the graph ranks, the largest ranked exactly,
            # the middle, the smallest
            picked = list(dict.fromkeys([0, 1, 2, *walked[-1:], min(ranked[2:] or ranked),
                                         TENANTS // 2, TENANTS - 1]))
            lines: list[tuple[str, Any, np.ndarray, int]] = [
                (names[t], {TENANT_KEY: names[t]}, np.flatnonzero(owner == t), t) for t in picked]
            for last in (4, 13):  # as if one tenant held the largest few tenants' rows
                members = [names[t] for t in range(2, last)]
                lines.append((f"{members[0]}-{members[-1]} as one scope", {TENANT_KEY: {"$in": members}},
                              np.flatnonzero((owner >= 2) & (owner < last)), 100 + last))
            # a filter every row passes: a table with one tenant (100%)
            lines.append(("every row, filtered (one tenant of 100%)", {"source": "file"},
                          np.arange(args.size), 99))
            lines.append(("untenanted: whole table, no filter", None, np.arange(args.size), 99))
            routes = search.Scopes(store.tables.chunks)
            for label, filters, rows, seed in lines:
                probe = scale.queries(vectors[rows], args.queries, seed=seed)
                where, params = where_clause(filters)
                with store.reader.cursor("bench") as cursor:
                    route = routes.route(cursor, filters, where, params, args.ef_search, K)
                got = measure(lambda q, f=filters: store.query(q, K, f), vectors, rows, probe)
                print(f"| {label} | {len(rows):,} | {len(rows) / args.size:.2%} | "
                      f"{'exact' if route.exact else f'walk {route.width:,} wide'} | "
                      f"{got['p50']:.1f} ms | {got['p95']:.1f} ms | {got['recall']:.3f} | "
                      f"{got['rows']:.0f} of {got['wanted']:.0f} |", flush=True)
            print(f"(load average {os.getloadavg()[0]:.1f})")
            short, recalls, rng = [], {}, np.random.default_rng(3)
            for tenant in range(TENANTS):  # every tenant: top_k rows (or all it has)? recall?
                rows = np.flatnonzero(owner == tenant)
                view = TenantStore(store, names[tenant])
                probe = scale.queries(vectors[rows], args.every, seed=int(rng.integers(1 << 30)))
                got = measure(lambda q, v=view: v.query(q, K), vectors, rows, probe)
                recalls[names[tenant]] = got["recall"]
                if got["rows"] < got["wanted"]:
                    short.append(names[tenant])
            worst = sorted(recalls, key=recalls.__getitem__)[:3]
            print(f"\nEvery tenant, {args.every} queries each: {TENANTS - len(short)} of {TENANTS} "
                  f"tenants got top_k rows (or all they have) every time; short: "
                  f"{sorted(short) or 'none'}; mean recall@10 {statistics.fmean(recalls.values()):.3f}, "
                  f"worst " + ", ".join(f"{name} {recalls[name]:.3f}" for name in worst)
                  + f"; below 0.95: {sorted(n for n, r in recalls.items() if r < 0.95) or 'none'}")
            for label, value in figures.items():
                print(f"{label}: {value:,.0f}")
        finally:
            store.close()


if __name__ == "__main__":
    main()
