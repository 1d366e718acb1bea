"""Property: whatever collections other apps keep on the same Chroma server (ragloom's
name in another case or punctuation, the exact name taken first, their own metadata, look-
alike metadata and records with ragloom's chunk ids), index, re-index with a file changed
and one removed, rebuild, a read-only search and close never change one of their
collections or records; a step that meets a collection ragloom did not create stops with
an error naming it and the way out."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest

chromadb = pytest.importorskip("chromadb", reason="the chroma extra is not installed")

from hypothesis import HealthCheck, example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from test_chroma_ownership import client_of, config_for  # noqa: E402

from helpers import ownership_steps, write  # noqa: E402
from ragloom import RAGEngine, StoreError  # noqa: E402
from ragloom.chunking.base import chunk_id  # noqa: E402

#: How a user's collection name relates to ragloom's ``team-docs-<n>``.
VARIANTS = {"same": lambda name: name, "upper": str.upper, "title": str.title,
            "underscore": lambda name: name.replace("-", "_"),
            "dot": lambda name: name.replace("-", "."), "longer": lambda name: name + "-files"}
METADATA: list[dict[str, Any] | None] = [
    None, {"owner": "their app"}, {"hnsw:space": "cosine"},
    {"ragloom:dimension": 384, "hnsw:space": "cosine", "embedding": "hash/feature-hash-v1"},
]
collections = st.lists(st.tuples(st.sampled_from(sorted(VARIANTS)), st.sampled_from(range(len(METADATA))),
                                 st.integers(0, 3)), max_size=3, unique_by=lambda item: item[0])


def create_user_collections(client: Any, base: str, items: list[tuple[str, int, int]]) -> list[str]:
    """The users' collections; one whose name ragloom already took cannot exist (skipped)."""
    made = []
    for variant, metadata, records in items:
        name = VARIANTS[variant](base)
        try:
            collection = client.create_collection(name, metadata=METADATA[metadata])
        except Exception:  # noqa: BLE001 - the name is ragloom's already
            continue
        if records:  # ragloom's own chunk ids and metadata keys, their own texts
            collection.add(ids=[chunk_id("a.md", i) for i in range(records)],
                           embeddings=[[0.1 * (i + 1)] * 384 for i in range(records)],
                           documents=[f"their record {i}" for i in range(records)],
                           metadatas=[{"path": "a.md", "chunk_index": i, "mine": True}
                                      for i in range(records)])
        made.append(name)
    return made


def user_state(client: Any, names: list[str]) -> dict[str, Any]:
    found = {}
    for name in names:
        collection = client.get_collection(name)
        data = collection.get(include=["documents", "metadatas", "embeddings"])
        found[name] = (collection.metadata, collection.configuration_json, data["ids"],
                       data["documents"], data["metadatas"],
                       [list(map(float, vector)) for vector in data["embeddings"]])
    return found


@pytest.mark.slow
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(items=collections, index_first=st.booleans())
@example(items=[("same", 3, 2), ("upper", 1, 1)], index_first=False)  # ragloom's name taken
@example(items=[("title", 0, 3), ("underscore", 2, 1), ("dot", 3, 0)], index_first=True)
def test_no_user_collection_is_ever_changed(chroma_server: Any, tmp_path: Path,
                                            items: list[tuple[str, int, int]],
                                            index_first: bool) -> None:
    client = client_of(chroma_server)
    base = f"team-docs-{uuid.uuid4().hex[:8]}"
    root = tmp_path / base
    write(root, "a.md", "# A\nRockets launch satellites into orbit.\n")
    write(root, "b.py", "def peel(banana):\n    return banana.skin\n")
    config = config_for(chroma_server, base)

    steps = ownership_steps(config, root)
    index, change_and_remove, rebuild = steps["index"], steps["change_and_remove"], steps["rebuild"]

    def read() -> None:
        with RAGEngine(config, root, read_only=True) as engine:
            assert engine.search("rockets probes moon")

    if index_first:
        index()
    names = create_user_collections(client, base, items)
    before = user_state(client, names)
    outcomes = []
    for step in (index, change_and_remove, read, rebuild, read, index):
        try:
            step()
            outcomes.append("ok")
        except StoreError as exc:
            assert f"Chroma collection {base!r}" in str(exc), str(exc)
            assert "was not created by ragloom" in str(exc), str(exc)
            assert "choose another vector_store.collection_name" in str(exc), str(exc)
            outcomes.append("refused")
    assert user_state(client, names) == before, (items, outcomes)
    taken = base in names  # the user made ragloom's exact name first
    assert outcomes == (["refused"] * 6 if taken else ["ok"] * 6), (items, index_first, outcomes)
