"""ragloom deletes only what it created: a user's file in a folder used as
``vector_store.path`` or ``index_dir`` survives every rebuild, and a folder ragloom did not
create is refused, untouched."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import hash_config, write
from ragloom import IndexMismatchError, IndexNotFoundError, RAGEngine, StoreError

PERSISTENT_STORES = ["turboquant", "chroma"]


def listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.fixture(params=PERSISTENT_STORES)
def store(request: pytest.FixtureRequest) -> str:
    if request.param == "chroma":
        pytest.importorskip("chromadb")
    return str(request.param)


@pytest.mark.parametrize("setting", ["vector_store.path", "index_dir"])
def test_a_folder_ragloom_did_not_create_is_refused_untouched(tmp_path: Path, store: str,
                                                             setting: str) -> None:
    shared = tmp_path / "shared"
    write(shared, "important.txt", "keep me\n")
    write(tmp_path, "a.py", "def alpha():\n    return 1\n")
    vector_store = {"provider": store}
    overrides: dict[str, object] = {"vector_store": vector_store}
    if setting == "index_dir":
        overrides["index_dir"] = str(shared)
    else:
        vector_store["path"] = str(shared)
    with pytest.raises(StoreError, match=f"folder {shared} is not empty and was not created by ragloom"):
        RAGEngine(hash_config(**overrides), tmp_path)
    assert listing(shared) == ["important.txt"]
    assert (shared / "important.txt").read_text() == "keep me\n"


@pytest.mark.parametrize("setting", ["vector_store.path", "index_dir"])
@pytest.mark.parametrize("read_only", [False, True])
def test_files_named_like_an_old_index_do_not_make_a_folder_ragloom_s(
        tmp_path: Path, store: str, setting: str, read_only: bool) -> None:
    """A user's own ``segments.json`` and ``00000001.npz``, or a ``lock`` and an
    ``embeddings.sqlite``, used to be adopted as an index made before markers existed (and
    replaced). Without the marker the folder is refused, whatever it holds."""
    shared = tmp_path / "shared"
    own = {"segments.json": b'{"mine": true}', "00000001.npz": b"my archive",
           "lock": b"my lock", "embeddings.sqlite": b"my database", "chroma.sqlite3": b"mine",
           "manifest_turboquant_ragloom.sqlite": b"mine too"}
    for name, data in own.items():
        (shared / name).parent.mkdir(parents=True, exist_ok=True)
        (shared / name).write_bytes(data)
    write(tmp_path, "a.py", "def alpha():\n    return 1\n")
    vector_store: dict[str, object] = {"provider": store}
    overrides: dict[str, object] = {"vector_store": vector_store}
    if setting == "index_dir":
        overrides["index_dir"] = str(shared)
    else:
        vector_store["path"] = str(shared)
    refused = f"folder {shared} is not empty and was not created by ragloom"
    if read_only and setting == "vector_store.path":
        refused = "no index at"  # a reader finds no index_dir before it looks at the store
    with pytest.raises(StoreError, match=refused):
        RAGEngine(hash_config(**overrides), tmp_path, read_only=read_only)
    assert {p.name: p.read_bytes() for p in shared.iterdir()} == own


def test_user_files_survive_dimension_change_reset_and_rebuild(tmp_path: Path, store: str) -> None:
    project = tmp_path / "project"
    write(project, "a.py", "def alpha():\n    return 1\n")
    store_dir = tmp_path / "vectors"
    config = hash_config(vector_store={"provider": store, "path": str(store_dir)})
    with RAGEngine(config, project) as engine:
        engine.index_directory()
    index_dir = project / ".ragloom"
    write(store_dir, "important.txt", "keep me\n")
    write(index_dir, "important.txt", "keep me too\n")
    changed = hash_config(embedding_dim=256, vector_store={"provider": store, "path": str(store_dir)})
    with pytest.raises(IndexMismatchError):  # another dimension: refused, nothing deleted
        RAGEngine(changed, project)
    assert (store_dir / "important.txt").is_file() and (index_dir / "important.txt").is_file()
    with RAGEngine(changed, project, rebuild=True) as engine:  # rebuilt on purpose
        engine.index_directory()
        assert engine.count() == 1
        engine.store.reset()
        engine.reindex()
        assert engine.count() == 1
    with RAGEngine(config, project, rebuild=True) as engine:  # and back
        engine.index_directory()
        assert engine.count() == 1
    assert (store_dir / "important.txt").read_text() == "keep me\n"
    assert (index_dir / "important.txt").read_text() == "keep me too\n"


def test_reading_with_another_model_never_drops_the_index(tmp_path: Path, store: str) -> None:
    write(tmp_path, "a.py", "def alpha():\n    return 1\n")
    config = hash_config(vector_store={"provider": store})
    with RAGEngine(config, tmp_path) as engine:
        engine.index_directory()
    other = hash_config(embedding_dim=256, vector_store={"provider": store})
    with pytest.raises(StoreError, match=r"built with hash/feature-hash-v1 \(384-d\).*ragloom index"):
        RAGEngine(other, tmp_path, read_only=True)
    with RAGEngine(config, tmp_path, read_only=True) as reader:
        assert reader.count() == 1
        assert reader.search("alpha")[0].metadata["path"] == "a.py"


def test_reading_where_there_is_no_index_creates_nothing(tmp_path: Path, store: str) -> None:
    write(tmp_path, "a.py", "def alpha():\n    return 1\n")
    with pytest.raises(IndexNotFoundError, match="no index"):
        RAGEngine(hash_config(vector_store={"provider": store}), tmp_path, read_only=True)
    assert listing(tmp_path) == ["a.py"]


def test_a_chroma_collection_ragloom_did_not_create_is_left_alone(tmp_path: Path) -> None:
    chromadb = pytest.importorskip("chromadb")
    folder = tmp_path / ".ragloom" / "chroma_ragloom"
    client = chromadb.PersistentClient(path=str(folder))
    client.create_collection("ragloom", metadata={"owner": "someone else"}).add(
        ids=["x"], embeddings=[[0.1] * 384], documents=["their data"])
    client.close()
    with pytest.raises(StoreError, match="was not created by ragloom"):
        RAGEngine(hash_config(vector_store={"provider": "chroma"}), tmp_path)
    client = chromadb.PersistentClient(path=str(folder))
    assert client.get_collection("ragloom").get(ids=["x"])["documents"] == ["their data"]
    client.close()
