"""A search on a Chroma server never mixes two versions of a file.

A Chroma server is written while other processes search it: between the writer's upsert of
a file's new chunks and the delete of the chunks its new version no longer has, the server
holds chunks of both versions. The writer is stopped right there (its delete is gated) and
a reader searches: dense alone and hybrid with the reader's BM25 snapshot, opened before
the change and inside the gate."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("chromadb", reason="the chroma extra is not installed")


from helpers import hash_config, write  # noqa: E402
from ragloom import RAGEngine  # noqa: E402
from ragloom.types import SearchResult  # noqa: E402

QUERY = "rockets satellites orbit"


def guide(parts: int, tag: str) -> str:
    """A markdown file of ``parts`` sections, each split into several chunks."""
    return "# Guide\n\n" + "".join(f"## Part {i}\n\n" + f"Rockets launch satellites into orbit "
                                   f"{tag} part {i}. " * 8 + "\n\n" for i in range(parts))


def versions(results: list[SearchResult]) -> set[str]:
    return {result.metadata["file_hash"] for result in results
            if result.metadata["path"] == "guide.md"}


def gate_delete(engine: RAGEngine, during: Callable[[], None]) -> None:
    """Run ``during`` when the writer's store first deletes chunks, before it does."""
    store = engine.store
    delete = store.delete

    def gated(ids: Sequence[str]) -> None:
        store.delete = delete  # type: ignore[method-assign]
        during()
        delete(ids)

    store.delete = gated  # type: ignore[method-assign]


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["dense", "hybrid"])
def test_a_search_beside_a_writer_sees_one_version_of_each_file(
        chroma_server: Any, tmp_path: Path, mode: str) -> None:
    config = hash_config(chunk_size=120, chunk_overlap=0, relevance_gate=0.0,
                         vector_store={"provider": "chroma", "url": chroma_server.url,
                                       "collection_name": f"snapshot-{mode}"})
    write(tmp_path, "guide.md", guide(3, "first"))
    write(tmp_path, "other.md", "# Other\n\nBananas are yellow.\n")
    seen: dict[str, list[set[str]]] = {"opened before": [], "opened inside": []}
    with RAGEngine(config, tmp_path) as writer:
        writer.index_directory()
        reader = RAGEngine(config, tmp_path, read_only=True)
        assert len(versions(reader.search(QUERY, top_k=10, mode=mode))) == 1

        def search_now() -> None:
            seen["opened before"].append(versions(reader.search(QUERY, top_k=10, mode=mode)))
            with RAGEngine(config, tmp_path, read_only=True) as late:
                seen["opened inside"].append(versions(late.search(QUERY, top_k=10, mode=mode)))

        gate_delete(writer, search_now)
        write(tmp_path, "guide.md", guide(2, "second"))  # fewer chunks: the last ones go
        writer.index_directory()
        reader.close()
    assert all(len(found) == 1 for found in seen["opened before"] + seen["opened inside"]), seen
    assert len(seen["opened before"]) == len(seen["opened inside"]) == 1


class HalfWritten:
    """A collection whose server answers with one record it has not finished writing or
    deleting (in the vector index, not yet or no longer in the metadata segment: id and
    distance, no document, no metadata), as a Chroma server did under the readers test."""

    def __init__(self, collection: Any) -> None:
        self._collection = collection

    def __getattr__(self, name: str) -> Any:
        return getattr(self._collection, name)

    def query(self, **kwargs: Any) -> dict[str, Any]:
        found = self._collection.query(**kwargs)
        for key, value in (("ids", "half"), ("documents", None), ("metadatas", None),
                           ("distances", 0.0)):
            found[key][0].insert(0, value)
        return found

    def get(self, **kwargs: Any) -> dict[str, Any]:
        found = self._collection.get(**kwargs)
        for key, value in (("ids", "half"), ("documents", None), ("metadatas", None)):
            found[key].insert(0, value)
        return found


@pytest.mark.slow
def test_a_record_the_server_has_half_written_is_not_a_result(chroma_server: Any) -> None:
    import numpy as np

    from ragloom.stores.base import EmbeddingSpec
    from ragloom.stores.chroma import ChromaVectorStore

    store = ChromaVectorStore.open_remote(chroma_server.url, "half-written",
                                          EmbeddingSpec("test/model", 4))
    try:
        store.upsert(["a", "b"], np.eye(4, dtype=np.float32)[:2], ["alpha", "beta"],
                     [{"path": "a.py"}, {"path": "b.py"}])
        store._collection = HalfWritten(store._collection)  # type: ignore[attr-defined]
        found = store.query(np.eye(4, dtype=np.float32)[0], 5)
        assert [(r.id, r.text, r.metadata) for r in found] == [
            ("a", "alpha", {"path": "a.py"}), ("b", "beta", {"path": "b.py"})]
        assert [c.id for c in store.get(["half", "b", "a"])] == ["b", "a"]
    finally:
        store.close()


@pytest.mark.slow
def test_a_read_the_server_fails_beside_a_write_is_tried_once_more(chroma_server: Any) -> None:
    """Under load a Chroma server failed a query run beside a write ("InternalError: Error
    executing plan: Internal error: Error finding id"); a read is tried once more, a write
    never, and a second failure is the error."""
    import numpy as np

    from ragloom.errors import StoreError
    from ragloom.stores.base import EmbeddingSpec
    from ragloom.stores.chroma import ChromaVectorStore

    class FailsOnce:
        def __init__(self, collection: Any, failures: int) -> None:
            self._collection, self.failures, self.calls = collection, failures, 0

        def __getattr__(self, name: str) -> Any:
            def call(**kwargs: Any) -> Any:
                self.calls += 1
                if self.calls <= self.failures:
                    raise RuntimeError("Error executing plan: Internal error: Error finding id")
                return getattr(self._collection, name)(**kwargs)
            return call

    store = ChromaVectorStore.open_remote(chroma_server.url, "fails-once", EmbeddingSpec("t/m", 4))
    try:
        store.upsert(["a"], np.eye(4, dtype=np.float32)[:1], ["alpha"], [{"path": "a.py"}])
        real = store._collection  # type: ignore[attr-defined]
        store._collection = FailsOnce(real, 1)  # type: ignore[attr-defined]
        assert [r.id for r in store.query(np.eye(4, dtype=np.float32)[0], 1)] == ["a"]
        store._collection = FailsOnce(real, 2)  # type: ignore[attr-defined]
        with pytest.raises(StoreError, match="Chroma query failed .* Error finding id"):
            store.query(np.eye(4, dtype=np.float32)[0], 1)
        store._collection = FailsOnce(real, 1)  # type: ignore[attr-defined]
        with pytest.raises(StoreError, match="Chroma delete failed"):
            store.delete(["a"])
    finally:
        store.close()
