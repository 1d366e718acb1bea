"""A Chroma server shared with other apps: a collection ragloom did not create is never
changed, adopted or dropped (not by index, rebuild or close), and collection names that
differ only in case or punctuation are separate collections."""

from __future__ import annotations

import uuid
from pathlib import Path
from urllib.parse import urlsplit

import pytest

chromadb = pytest.importorskip("chromadb", reason="the chroma extra is not installed")


from helpers import hash_config, write  # noqa: E402
from ragloom import RAGEngine, StoreError  # noqa: E402


def client_of(server) -> object:
    parts = urlsplit(server.url)
    return chromadb.HttpClient(host=parts.hostname, port=parts.port)


def config_for(server, name: str, **overrides):
    return hash_config(vector_store={"provider": "chroma", "url": server.url,
                                     "collection_name": name}, **overrides)


def state(client, names: list[str]) -> dict[str, object]:
    found = {}
    for name in names:
        collection = client.get_collection(name)
        data = collection.get(include=["documents", "metadatas", "embeddings"])
        found[name] = (collection.metadata, data["ids"], data["documents"], data["metadatas"],
                       [list(map(float, vector)) for vector in data["embeddings"]])
    return found


@pytest.mark.slow
def test_a_foreign_collection_is_never_changed_adopted_or_dropped(
        chroma_server, tmp_path: Path) -> None:
    client = client_of(chroma_server)
    name = f"app-{uuid.uuid4().hex[:8]}"
    client.create_collection(name, metadata={"owner": "their app"}).add(
        ids=["x"], embeddings=[[0.5] * 384], documents=["their data"], metadatas=[{"k": 1}])
    before = state(client, [name])
    write(tmp_path, "a.md", "# A\nrockets and orbits\n")
    for rebuild in (False, True):
        with pytest.raises(StoreError, match=f"Chroma collection '{name}' .* was not created by "
                                             "ragloom; ragloom will not read, change or drop it"):
            with RAGEngine(config_for(chroma_server, name), tmp_path, rebuild=rebuild) as engine:
                engine.index_directory()
    assert state(client, [name]) == before


@pytest.mark.slow
def test_rebuild_drops_only_its_own_collection(chroma_server, tmp_path: Path) -> None:
    client = client_of(chroma_server)
    suffix = uuid.uuid4().hex[:8]
    ours, theirs = f"ours-{suffix}", f"theirs-{suffix}"
    client.create_collection(theirs, metadata={"owner": "their app"}).add(
        ids=["x"], embeddings=[[0.5] * 384], documents=["their data"])
    before = state(client, [theirs])
    write(tmp_path, "a.md", "# A\nrockets and orbits\n")
    with RAGEngine(config_for(chroma_server, ours), tmp_path) as engine:
        engine.index_directory()
    other_model = config_for(chroma_server, ours, embedding={"dim": 256})
    with RAGEngine(other_model, tmp_path, rebuild=True) as engine:
        engine.index_directory()
        assert engine.count() == 1
    assert state(client, [theirs]) == before


@pytest.mark.slow
def test_names_differing_in_case_or_punctuation_are_separate_collections(
        chroma_server, tmp_path: Path) -> None:
    suffix = uuid.uuid4().hex[:8]
    names = {f"team-docs-{suffix}": "zeppelin", f"team_docs-{suffix}": "submarine",
             f"Team-Docs-{suffix}": "glacier", f"team.docs-{suffix}": "volcano"}
    for name, word in names.items():
        root = tmp_path / name
        write(root, "a.md", f"# Place\nThe {word} is here.\n")
        with RAGEngine(config_for(chroma_server, name), root) as engine:
            engine.index_directory()
    for name, word in names.items():
        with RAGEngine(config_for(chroma_server, name), tmp_path / name, read_only=True) as engine:
            texts = [r.text for r in engine.search("zeppelin submarine glacier volcano", top_k=5)]
            assert engine.count() == 1 and word in texts[0], (name, texts)
    client = client_of(chroma_server)
    assert {c.name for c in client.list_collections()} >= set(names)
