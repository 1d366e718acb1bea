"""One search, one snapshot: the dense half and the BM25 half of a hybrid search run on two
connections at once, and a writer commits between them; every result still comes from the
version the search started on (deterministic: the writer commits exactly between them)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from helpers import hash_config, write
from ragloom import RAGEngine
from ragloom.retrieval.postgres_bm25 import PostgresSparseIndex
from ragloom.stores.postgres.store import PostgresStore


def _page(version: str, parts: int) -> str:
    """A page of ``parts`` parts (more parts: chunks the old version did not have)."""
    return "".join(f"## Part {n}\nThe zebra {version} grazes by river {n} at dawn {version}.\n\n"
                   f"{'Savanna grass and acacia trees. ' * 12}\n\n" for n in range(parts))


def test_a_hybrid_search_sees_one_version_while_a_writer_commits_between_its_halves(
        postgres_server: Any, postgres_schema: str, tmp_path: Path, monkeypatch) -> None:
    config = hash_config(vector_store={"provider": "postgres", "url": postgres_server.url,
                                       "postgres": {"schema": postgres_schema}},
                         chunk_size=60, chunk_overlap=0)
    root = tmp_path / "project"
    write(root, "zoo.md", _page("one", 4))
    writer = RAGEngine(config, root)
    writer.index_directory()
    committed = threading.Event()
    query, search = PostgresStore.query, PostgresSparseIndex.search

    def dense_then_write(self: PostgresStore, *args: Any, **kwargs: Any) -> Any:
        found = query(self, *args, **kwargs)
        if not committed.is_set():  # the first dense query: the writer commits a new version
            write(root, "zoo.md", _page("two", 12))
            writer.index_directory()
            committed.set()
        return found

    def bm25_after_the_write(self: PostgresSparseIndex, *args: Any, **kwargs: Any) -> Any:
        assert committed.wait(60)
        return search(self, *args, **kwargs)

    try:
        with RAGEngine(config, tmp_path / "elsewhere", read_only=True) as reader:
            first = {r.metadata["file_hash"] for r in reader.search("zebra grazes", top_k=10)}
            monkeypatch.setattr(PostgresStore, "query", dense_then_write)
            monkeypatch.setattr(PostgresSparseIndex, "search", bm25_after_the_write)
            results = reader.search("zebra grazes river dawn", top_k=10, mode="hybrid")
            monkeypatch.undo()
            after = reader.search("zebra grazes river dawn", top_k=10, mode="hybrid")
    finally:
        writer.close()
    assert committed.is_set()
    assert len(first) == 1 and len(results) >= 4
    assert {r.metadata["file_hash"] for r in results} == first  # was: both versions mixed
    second = {r.metadata["file_hash"] for r in after}
    assert len(second) == 1 and second != first  # the next search sees the new version
