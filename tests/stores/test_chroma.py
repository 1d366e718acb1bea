"""The Chroma store: conformance (embedded and against a real server), rebuild on model
change, batching, remote errors and auth."""

from __future__ import annotations

import http.server
import threading
import uuid
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("chromadb", reason="the chroma extra is not installed")

from chroma_server import ChromaServer  # noqa: E402

from helpers import hash_config, write  # noqa: E402
from ragloom import RAGEngine, StoreError  # noqa: E402
from ragloom.errors import IndexMismatchError  # noqa: E402
from ragloom.stores.base import EmbeddingSpec  # noqa: E402
from ragloom.stores.chroma import ChromaVectorStore  # noqa: E402
from ragloom.stores.registry import vector_stores
from ragloom.testing.stores import DIM, StoreConformance, sample_rows  # noqa: E402

SPEC = EmbeddingSpec("hash/feature-hash-v1", DIM)


class TestChromaEmbedded(StoreConformance):
    persistent = True

    @pytest.fixture
    def backend(self):
        return vector_stores.get("chroma")

    @pytest.fixture
    def store_factory(self, tmp_path: Path):
        return lambda: ChromaVectorStore.open_local(tmp_path / "db", "test", SPEC)


@pytest.mark.slow
class TestChromaRemote(StoreConformance):
    persistent = True

    @pytest.fixture
    def backend(self):
        return vector_stores.get("chroma")

    @pytest.fixture
    def store_factory(self, chroma_server: ChromaServer):
        name = f"test-{uuid.uuid4().hex[:12]}"
        return lambda: ChromaVectorStore.open_remote(chroma_server.url, name, SPEC)


def test_upserts_split_under_max_batch_size(tmp_path: Path) -> None:
    store = ChromaVectorStore.open_local(tmp_path / "db", "batches", SPEC)
    store._max_batch = 7  # type: ignore[attr-defined]
    rng = np.random.default_rng(0)
    ids = [f"id{i}" for i in range(50)]
    store.upsert(ids, rng.normal(size=(50, DIM)), [f"t{i}" for i in range(50)],
                 [{"path": f"f{i % 5}.txt"} for i in range(50)])
    assert store.count() == 50
    store.delete(ids[:25])
    assert store.count() == 25
    store.delete(ids)
    assert store.count() == 0


def test_wrong_dimension_upsert_is_rejected(tmp_path: Path) -> None:
    store = ChromaVectorStore.open_local(tmp_path / "db", "dims", SPEC)
    with pytest.raises(ValueError, match="dimension 8, the store holds 16"):
        store.upsert(["a"], np.ones((1, 8)), ["t"], [{"path": "a"}])


def test_another_model_is_refused_naming_both_and_never_dropped(tmp_path: Path) -> None:
    """A collection may be shared (a Chroma server above all): built for another model it is
    an error naming both identities and the rebuild; only a rebuild on purpose drops it."""
    ids, vectors, texts, metadatas = sample_rows()
    ChromaVectorStore.open_local(tmp_path / "db", "coll", SPEC).upsert(ids, vectors, texts, metadatas)
    for read_only in (False, True):
        with pytest.raises(IndexMismatchError, match=r"built with hash/feature-hash-v1 \(16-d\), "
                           r"not local/x \(16-d\).*ragloom index --rebuild") as refused:
            ChromaVectorStore.open_local(tmp_path / "db", "coll", EmbeddingSpec("local/x", DIM),
                                         read_only=read_only)
        assert (refused.value.discard is None) is read_only
    assert ChromaVectorStore.open_local(tmp_path / "db", "coll", SPEC).count() == 4
    assert refused.value.discard is None
    with pytest.raises(IndexMismatchError) as refused:
        ChromaVectorStore.open_local(tmp_path / "db", "coll", EmbeddingSpec("local/x", DIM))
    assert refused.value.discard is not None
    refused.value.discard()
    assert ChromaVectorStore.open_local(tmp_path / "db", "coll", EmbeddingSpec("local/x", DIM)).count() == 0


def test_engine_refuses_another_dimension_and_rebuilds_only_on_purpose(tmp_path: Path) -> None:
    """384 -> 768 -> 384: each switch is refused naming both identities (never dropped
    implicitly) until asked with rebuild=True; the cache keeps each model's vectors."""
    project = tmp_path / "project"
    write(project, "a.txt", "rockets launch satellites into orbit\n")
    write(project, "b.md", "# Fruit\napples and pears\n")
    store = {"provider": "chroma"}
    for dimension, expected_embedded in ((384, 2), (768, 2), (384, 0)):
        config = hash_config(embedding={"dim": dimension}, vector_store=store)
        if dimension != 384 or expected_embedded == 0:
            with pytest.raises(IndexMismatchError, match=r"built with .*not hash/feature-hash-v1 "
                               rf"\({dimension}-d\).*ragloom index --rebuild"):
                RAGEngine(config, project)
        with RAGEngine(config, project, rebuild=expected_embedded == 0 or dimension == 768) as engine:
            report = engine.index_directory()
            assert report.files_indexed == 2
            assert report.chunks_embedded == expected_embedded, dimension
            assert engine.count() == 2
            top = engine.search("rockets orbit", top_k=1)[0]
            assert top.metadata["path"] == "a.txt"


def test_engine_reopen_keeps_index_and_skips_unchanged(tmp_path: Path) -> None:
    project = tmp_path / "project"
    write(project, "a.py", "def parse(text):\n    return text.split()\n")
    config = hash_config(vector_store={"provider": "chroma", "collection_name": "proj"})
    with RAGEngine(config, project) as engine:
        engine.index_directory()
    assert (project / ".ragloom" / "chroma_proj").is_dir()
    with RAGEngine(config, project) as engine:
        assert engine.count() == 1
        report = engine.index_directory()
        assert (report.files_unchanged, report.chunks_embedded) == (1, 0)
        assert engine.search("parse text", top_k=1)[0].metadata["symbol"] == "parse"


def test_engine_resolves_globs_for_chroma_as_the_exact_store_matches_them(tmp_path: Path) -> None:
    project = tmp_path / "project"
    write(project, "src/app/parse.py", "def parse(text):\n    return text.split()\n")
    write(project, "src/app/lex.py", "def lex(text):\n    return list(text)\n")
    write(project, "docs/parse.md", "# Parsing\nHow text is parsed.\n")
    write(project, "notes.txt", "parse the text later\n")
    cases = [{"path": "src/**/*.py"}, {"path": {"$glob": "*.txt"}}, {"path": "src/*.py"},
             {"heading": {"$glob": "Pars*"}}, {"path": {"$glob": "src/**", "$in": ["src/app/lex.py"]}},
             {"path": {"$glob": "nothing/**"}}]
    found = {}
    for provider in ("memory", "chroma"):
        with RAGEngine(hash_config(vector_store={"provider": provider}, relevance_gate=0.0),
                       project) as engine:
            engine.index_directory()
            for mode in ("dense", "hybrid"):
                found[provider, mode] = [sorted(r.path for r in engine.search(
                    "parse text", top_k=10, filters=filters, mode=mode)) for filters in cases]
    assert found["chroma", "dense"] == found["memory", "dense"] == [
        ["src/app/lex.py", "src/app/parse.py"], ["notes.txt"], [], ["docs/parse.md"],
        ["src/app/lex.py"], []]
    assert found["chroma", "hybrid"] == found["memory", "hybrid"] == found["memory", "dense"]


@pytest.mark.slow
def test_engine_against_remote_server(chroma_server: ChromaServer, tmp_path: Path) -> None:
    project = tmp_path / "project"
    write(project, "a.txt", "rockets launch satellites into orbit\n")
    config = hash_config(vector_store={"provider": "chroma", "url": chroma_server.url,
                                       "collection_name": f"e-{uuid.uuid4().hex[:8]}"})
    write(project, "b.txt", "apples and pears in the orchard\n")
    with RAGEngine(config, project) as engine:
        engine.index_directory()
        assert engine.search("orbit", top_k=1, mode="dense")[0].metadata["path"] == "a.txt"
        # hybrid: BM25 runs while the server answers the dense query
        response = engine.search_detailed("rockets orbit", top_k=2, mode="hybrid")
        assert [r.path for r in response.results] == ["a.txt", "b.txt"]
        assert set(response.results[0].retrievers) == {"dense", "sparse"}
        assert response.candidates == {"dense": 2, "sparse": 1, "fused": 2}


def test_unreachable_server_names_the_url() -> None:
    with pytest.raises(StoreError, match=r"cannot connect to the Chroma server at http://127.0.0.1:9"):
        ChromaVectorStore.open_remote("http://127.0.0.1:9", "x", SPEC)


def test_bad_url_is_rejected() -> None:
    with pytest.raises(StoreError, match="not an http"):
        ChromaVectorStore.open_remote("ftp://host/x", "x", SPEC)


def test_api_key_is_sent_as_bearer_token_and_never_shown() -> None:
    seen: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            seen.append(self.headers.get("Authorization", ""))
            self.send_response(500)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with pytest.raises(StoreError) as info:
            ChromaVectorStore.open_remote(f"http://127.0.0.1:{server.server_port}", "x", SPEC,
                                          api_key="chroma-secret-token")
    finally:
        server.shutdown()
    assert seen and seen[0] == "Bearer chroma-secret-token"
    assert "chroma-secret-token" not in str(info.value)


def test_embedded_store_keeps_texts_beside_the_database(tmp_path: Path) -> None:
    """Texts live in ragloom_texts.sqlite, not in Chroma's database (whose document string
    index and full-text index cost 9 KB a chunk): Chroma holds no document, reads give
    every text back, deletes and resets remove them."""
    import sqlite3

    store = ChromaVectorStore.open_local(tmp_path / "db", "texts", SPEC)
    ids, vectors, texts, metadatas = sample_rows()
    store.upsert(ids, vectors, texts, metadatas)
    assert [c.text for c in store.get(ids)] == texts
    assert {r.id: r.text for r in store.query(vectors[0], 10)} == dict(zip(ids, texts))
    store.delete(ids[:1])
    store.close()
    database = sqlite3.connect(tmp_path / "db" / "chroma.sqlite3")
    documents = "SELECT COUNT(*) FROM embedding_metadata WHERE key = 'chroma:document'"
    assert database.execute(documents).fetchone() == (0,)
    database.close()
    kept = sqlite3.connect(tmp_path / "db" / "ragloom_texts.sqlite")
    assert sorted(r[0] for r in kept.execute("SELECT id FROM texts")) == sorted(ids[1:])
    kept.close()
    reader = ChromaVectorStore.open_local(tmp_path / "db", "texts", SPEC, read_only=True)
    assert [c.text for c in reader.get(ids)] == texts[1:]
    reader.close()


def test_a_collection_with_documents_inside_chroma_still_reads(tmp_path: Path) -> None:
    """A collection written before texts moved out keeps answering with its documents."""
    store = ChromaVectorStore.open_local(tmp_path / "db", "older", SPEC)
    ids, vectors, texts, metadatas = sample_rows()
    store._texts = None  # write as earlier versions did: documents inside Chroma
    store.upsert(ids, vectors, texts, metadatas)
    store.close()
    reopened = ChromaVectorStore.open_local(tmp_path / "db", "older", SPEC)
    assert [c.text for c in reopened.get(ids)] == texts
    assert {r.id: r.text for r in reopened.query(vectors[0], 10)} == dict(zip(ids, texts))
    reopened.close()


def _ef_search(path: Path, name: str, value: int | None = None) -> int:
    """The collection's ef_search read (or first set) through a client of Chroma's own."""
    import chromadb

    client = chromadb.PersistentClient(path=str(path))
    try:
        collection = client.get_collection(name)
        if value is not None:
            collection.modify(configuration={"hnsw": {"ef_search": value}})
        return int(client.get_collection(name).configuration_json["hnsw"]["ef_search"])
    finally:
        client.close()


def test_a_reader_searches_a_collection_with_chromas_default_ef_exactly(tmp_path: Path) -> None:
    """A collection left at Chroma's ef_search 100 (made by an older ragloom) and opened only
    for reading is searched at EXACT_UP_TO: Chroma takes ef_search when it first loads the
    index, and at 100 a reader of the babybuddy index got 100 number-table chunks (cosine
    <= 0.16) ahead of the answer (0.46)."""
    from ragloom.stores.chroma import EXACT_UP_TO

    store = ChromaVectorStore.open_local(tmp_path / "db", "old", SPEC)
    ids, vectors, texts, metadatas = sample_rows()
    store.upsert(ids, vectors, texts, metadatas)
    store.close()
    assert _ef_search(tmp_path / "db", "old", 100) == 100
    reader = ChromaVectorStore.open_local(tmp_path / "db", "old", SPEC, read_only=True)
    try:
        assert reader._collection.configuration_json["hnsw"]["ef_search"] == EXACT_UP_TO
        assert reader.query(vectors[2], 1)[0].id == ids[2]
    finally:
        reader.close()
    assert _ef_search(tmp_path / "db", "old") == EXACT_UP_TO


def test_a_reader_that_cannot_raise_ef_search_still_reads_and_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """Raising ef_search is the one change a reader makes; refused (a server's read-only
    token), the reader still opens and warns that its searches are approximate."""
    import ragloom.stores.chroma as chroma

    store = ChromaVectorStore.open_local(tmp_path / "db", "old", SPEC)
    ids, vectors, texts, metadatas = sample_rows()
    store.upsert(ids, vectors, texts, metadatas)
    store.close()
    _ef_search(tmp_path / "db", "old", 100)

    def refuse(collection: object) -> None:
        raise PermissionError("read-only token")

    monkeypatch.setattr(chroma, "_search_exactly", refuse)
    with caplog.at_level("WARNING", logger="ragloom"):
        reader = ChromaVectorStore.open_local(tmp_path / "db", "old", SPEC, read_only=True)
    try:
        assert [c.id for c in reader.get(ids[:2])] == ids[:2]
    finally:
        reader.close()
    assert ("Chroma collection 'old' at " in caplog.text
            and "keeps ef_search 100 (PermissionError: read-only token): its searches are "
                "approximate" in caplog.text)
