"""A chunk deleted between a search's read of its text and of its vector (a Chroma server
written under its readers did this in the readers-beside-a-writer test) is left out of the
results; the search does not fail."""

from __future__ import annotations

from pathlib import Path

from helpers import hash_config, write
from ragloom import RAGEngine


def test_a_chunk_deleted_between_text_and_vector_is_left_out(tmp_path: Path) -> None:
    for name in ("a", "b", "c"):
        write(tmp_path, f"{name}.md", f"# {name}\nRockets launch satellites from site {name}.\n")
    with RAGEngine(hash_config(relevance_gate=0.0), tmp_path) as engine:
        engine.index_directory()
        store = engine.store
        get = store.get
        deleted: list[str] = []

        def get_then_delete(ids):  # the writer deletes one right after the read
            chunks = get(ids)
            if not deleted and len(chunks) > 1:
                deleted.append(chunks[1].id)
                store.delete(deleted)
            return chunks

        store.get = get_then_delete  # type: ignore[method-assign]
        results = engine.search("rockets satellites", top_k=5, mode="sparse")
        assert deleted and len(results) == 2
        assert deleted[0] not in {r.id for r in results}
