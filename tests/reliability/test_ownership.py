"""ragloom deletes only what it created: a user's file in a folder used as
``vector_store.path`` or ``index_dir`` survives every rebuild, and a folder ragloom did not
create is refused, untouched."""

from __future__ import annotations

from pathlib import Path
from typing import Any

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
    changed = hash_config(embedding={"dim": 256}, vector_store={"provider": store, "path": str(store_dir)})
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
    other = hash_config(embedding={"dim": 256}, vector_store={"provider": store})
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


USER_FILES = {"00000099.seg": b"my segment", "00000098.npz": b"my archive",
              ".00000097.seg.4242.tmp": b"my temp"}


def test_user_files_named_like_segments_survive_merges_reset_and_rebuild(tmp_path: Path) -> None:
    """Was: a user file named like a segment inside the store folder was deleted (the
    writer deleted every file named like its own that its list did not name)."""
    project, store_dir, config = indexed_turboquant(tmp_path)
    bm25_dirs = list((project / ".ragloom").glob("bm25_*.segments"))
    assert len(bm25_dirs) == 1
    for folder in (store_dir, bm25_dirs[0]):
        for name, data in USER_FILES.items():
            (folder / name).write_bytes(data)
    with RAGEngine(config, project) as engine:
        for round_number in range(12):  # enough saves for merges and compactions
            write(project, f"f{round_number}.py", f"def f{round_number}():\n    return 1\n")
            engine.index_directory()
        engine.store.reset()
        engine.reindex()
    with RAGEngine(config, project, rebuild=True) as engine:
        engine.index_directory()
        assert engine.count() == 13
    changed = hash_config(embedding={"dim": 256}, vector_store={"provider": "turboquant",
                                                           "path": str(store_dir)})
    with RAGEngine(changed, project, rebuild=True) as engine:  # another model: files dropped
        engine.index_directory()
    for folder in (store_dir, bm25_dirs[0]):
        assert {name: (folder / name).read_bytes() for name in USER_FILES} == USER_FILES, folder


def test_a_user_file_where_the_next_segment_goes_is_stepped_over(tmp_path: Path) -> None:
    project, store_dir, config = indexed_turboquant(tmp_path)
    listed = sorted(p.name for p in store_dir.glob("*.seg"))
    following = f"{int(listed[-1].split('.')[0]) + 1:08d}.seg"
    (store_dir / following).write_bytes(b"mine")
    write(project, "b.py", "def beta():\n    return 2\n")
    with RAGEngine(config, project) as engine:
        engine.index_directory()
    with RAGEngine(config, project, read_only=True) as engine:
        assert engine.count() == 2
    assert (store_dir / following).read_bytes() == b"mine"


def test_a_folder_from_before_the_ledger_is_still_cleaned(tmp_path: Path) -> None:
    """An index written before the ledger: the names its list holds are ragloom's."""
    project, store_dir, config = indexed_turboquant(tmp_path)
    (store_dir / ".ragloom-written").unlink()
    old = sorted(p.name for p in store_dir.glob("*.seg"))
    changed = hash_config(embedding={"dim": 256}, vector_store={"provider": "turboquant",
                                                           "path": str(store_dir)})
    with RAGEngine(changed, project, rebuild=True) as engine:
        engine.index_directory()
    assert old and not any((store_dir / name).exists() and (store_dir / name).stat().st_size == 0
                           for name in old)
    assert sorted(p.name for p in store_dir.glob("*.seg")) == ["00000001.seg"]


def indexed_turboquant(tmp_path: Path) -> tuple[Path, Path, Any]:
    """A project of one file indexed into a TurboQuant folder of its own: (project, store
    folder, config)."""
    project = tmp_path / "project"
    store_dir = tmp_path / "vectors"
    config = hash_config(vector_store={"provider": "turboquant", "path": str(store_dir)})
    write(project, "a.py", "def alpha():\n    return 1\n")
    with RAGEngine(config, project) as engine:
        engine.index_directory()
    return project, store_dir, config
