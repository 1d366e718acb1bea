"""Collections as a first-class list on every store that keeps them (TurboQuant, embedded
Chroma, a Chroma server, Postgres): list_collections names each with its model, chunks,
files and size (or says a size is unknown); drop_collection removes one collection's
objects and leaves another collection and the user's own file, collection or table as
they were; the embedding model stays fixed per collection."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest

from helpers import hash_config, write
from ragloom import (
    IndexLockedError,
    IndexMismatchError,
    RAGEngine,
    StoreError,
    drop_collection,
    list_collections,
)

STORES = ["turboquant", "chroma", "chroma-server", "postgres"]


@pytest.fixture
def place(request: pytest.FixtureRequest) -> Any:
    """(config for collection name, a probe of the user's own object: make / read it)."""
    store = request.param

    def config(name: str, **overrides: Any) -> Any:
        if store == "postgres":
            server, schema = _postgres(request)
            vector_store = {"provider": "postgres", "url": server.url, "postgres": {"schema": schema}}
        elif store == "chroma-server":
            vector_store = {"provider": "chroma", "url": request.getfixturevalue("chroma_server").url}
        else:
            vector_store = {"provider": store}
        return hash_config(vector_store={**vector_store, "collection_name": name}, **overrides)
    return store, config


def _user_object(store: str, config: Any, base_dir: Path, request: pytest.FixtureRequest) -> Any:
    """Make an object of the user's beside the collections; returns its name and a function
    reading it."""
    if store == "postgres":
        server, schema = _postgres(request)
        server.execute(f'CREATE TABLE "{schema}".ragloom_notes (id int primary key, body text)')
        server.execute(f"INSERT INTO \"{schema}\".ragloom_notes VALUES (1, 'mine')")
        return "ragloom_notes", lambda: server.execute(f'SELECT * FROM "{schema}".ragloom_notes')
    if store == "chroma-server":
        from test_chroma_ownership import client_of

        client = client_of(request.getfixturevalue("chroma_server"))
        name = f"their-{uuid.uuid4().hex[:8]}"
        client.create_collection(name, metadata={"owner": "their app"}).add(
            ids=["x"], embeddings=[[0.5] * 4], documents=["their data"])
        return name, lambda: client.get_collection(name).get()["documents"]
    index_dir = base_dir / config.index_dir
    mine = [index_dir / "my-notes.txt", index_dir / f"{store}_alpha" / "00000099.seg"]
    for file in mine:
        file.write_text("mine", encoding="utf-8")
    return "my-notes", lambda: [file.read_text(encoding="utf-8") if file.exists() else None for file in mine]


def _postgres(request: pytest.FixtureRequest) -> tuple[Any, str]:
    return request.getfixturevalue("postgres_server"), request.getfixturevalue("postgres_schema")


def _unique(base: str) -> str:
    return f"{base}{uuid.uuid4().hex[:6]}"


@pytest.mark.parametrize("place", STORES, indirect=True)
def test_list_then_drop_one_collection_leaves_the_other_and_the_users_objects(
        place: Any, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    store, config = place
    if store == "chroma-server":
        pytest.importorskip("chromadb")
    alpha, beta = (("alpha", "beta") if store in ("turboquant", "chroma")
                   else (_unique("alpha"), _unique("beta")))
    write(tmp_path, "a.md", "# A\nrockets and orbits\n\n## B\nfuel and oxygen\n")
    write(tmp_path, "b.md", "# B\ngliders ride thermals\n")
    for name in (alpha, beta):
        with RAGEngine(config(name), tmp_path) as engine:
            engine.index_directory()
            chunks = engine.count()
    theirs, mine = _user_object(store, config(alpha), tmp_path, request)
    before_mine = mine()
    listed = {info.name: info for info in list_collections(config(alpha), tmp_path)}
    assert {alpha, beta} <= set(listed) and not {theirs, "notes"} & set(listed)
    with pytest.raises(StoreError, match=f"'{theirs}'"):  # not ragloom's: never dropped
        drop_collection(config(alpha), tmp_path, theirs)
    info = listed[alpha]
    assert (info.store, info.embedding_model, info.dimension, info.chunks, info.files) == (
        "chroma" if store == "chroma-server" else store, "hash/feature-hash-v1", 384, chunks, 2)
    assert info.bytes is None if store == "chroma-server" else info.bytes > 0
    with RAGEngine(config(beta), tmp_path) as engine:
        before_beta = sorted((r.id, r.text) for r in engine.search("rockets orbits", top_k=5))
        if store in ("turboquant", "chroma"):  # a writer at work on the folder: refused
            with pytest.raises(IndexLockedError):
                drop_collection(config(alpha), tmp_path, alpha)
    dropped = drop_collection(config(beta), tmp_path, alpha)
    assert dropped.name == alpha and dropped.removed
    assert alpha not in {info.name for info in list_collections(config(alpha), tmp_path)}
    assert mine() == before_mine
    with RAGEngine(config(beta), tmp_path, read_only=True) as engine:
        assert sorted((r.id, r.text) for r in engine.search("rockets orbits", top_k=5)) == before_beta
    with pytest.raises(StoreError, match=f"no .*collection '{alpha}'"):
        drop_collection(config(beta), tmp_path, alpha)
    with RAGEngine(config(alpha), tmp_path) as engine:  # a dropped name starts afresh
        assert engine.count() == 0
        assert engine.index_directory().files_indexed == 2


@pytest.mark.parametrize("place", ["turboquant", "postgres"], indirect=True)
def test_the_model_stays_fixed_per_collection(place: Any, tmp_path: Path) -> None:
    store, config = place
    name = "fixed" if store == "turboquant" else _unique("fixed")
    write(tmp_path, "a.md", "# A\nrockets and orbits\n")
    with RAGEngine(config(name), tmp_path) as engine:
        engine.index_directory()
    other = config(name, embedding={"dim": 256})
    [listed] = [info for info in list_collections(other, tmp_path) if info.name == name]
    assert (listed.embedding_model, listed.dimension) == ("hash/feature-hash-v1", 384)
    with pytest.raises(IndexMismatchError, match="256"):
        RAGEngine(other, tmp_path)
    drop_collection(other, tmp_path, name)
    with RAGEngine(other, tmp_path) as engine:  # dropped on purpose: the new model may build it
        engine.index_directory()
    assert [i.dimension for i in list_collections(other, tmp_path) if i.name == name] == [256]


def test_a_store_without_collections_says_so(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="the 'memory' store keeps no collections"):
        list_collections(hash_config(), tmp_path)


def test_a_postgres_drop_is_refused_while_a_user_key_points_into_it_or_a_writer_works(
        postgres_server: Any, postgres_schema: str, tmp_path: Path) -> None:
    config = hash_config(vector_store={"provider": "postgres", "url": postgres_server.url,
                                       "postgres": {"schema": postgres_schema}, "collection_name": "kbase"})
    write(tmp_path, "a.md", "# A\nrockets and orbits\n")
    with RAGEngine(config, tmp_path) as engine:
        engine.index_directory()
        with pytest.raises(IndexLockedError, match="being written by another process: not dropped"):
            drop_collection(config, tmp_path, "kbase")
    postgres_server.execute(f'CREATE TABLE "{postgres_schema}".notes (id int, chunk text REFERENCES '
                            f'"{postgres_schema}".ragloom_kbase (id))')
    with pytest.raises(StoreError, match="constraint notes_chunk_fkey on table"):
        drop_collection(config, tmp_path, "kbase")
    assert [info.chunks for info in list_collections(config, tmp_path)] == [1]
    postgres_server.execute(f'DROP TABLE "{postgres_schema}".notes')
    dropped = drop_collection(config, tmp_path, "kbase")
    assert f"{postgres_schema}.ragloom_kbase_embeddings" in dropped.removed
    assert list_collections(config, tmp_path) == []
    assert postgres_server.execute(
        f"SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        f"WHERE n.nspname = '{postgres_schema}'") == [(0,)]
