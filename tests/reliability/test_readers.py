"""Several processes read one index while another writes it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path

import pytest
from chroma_server import ChromaServer
from trees import initial_tree, reindex_rounds, tree_config

from helpers import hash_config, write
from ragloom import IndexLockedError, RAGEngine

TESTS = Path(__file__).resolve().parents[1]
CHILD = Path(__file__).resolve().parent / "reader_child.py"
READERS = 4
#: Bounded by counts, not time: 40 re-index rounds of five file changes, and every reader
#: searches at least eight times after each (1,280 searches at the least, each checked for
#: whole file versions), so a search mixing versions cannot pass by a kind timing. More
#: rounds for a longer run under load: RAGLOOM_TEST_READER_ROUNDS (docs/benchmarks.md).
ROUNDS = int(os.environ.get("RAGLOOM_TEST_READER_ROUNDS", "40"))
SEARCHES_PER_ROUND = 8


def searches_done(count_files: list[Path]) -> list[int]:
    return [int(f.read_text()) if f.is_file() else 0 for f in count_files]


@pytest.mark.slow
@pytest.mark.parametrize("store", ["turboquant", "postgres", "postgres pg_textsearch",
                                   "chroma server"])
def test_four_readers_search_while_a_fifth_process_indexes(tmp_path: Path, store: str,
                                                           request: pytest.FixtureRequest) -> None:
    root = tmp_path / "project"
    rng, versions = initial_tree(root, seed=3)
    stop_file = tmp_path / "stop"
    count_files = [tmp_path / f"count{i}" for i in range(READERS)]
    config, settings, reader_root = tree_config(), None, root
    with ExitStack() as servers:
        if store.startswith("postgres"):  # readers on folders of their own: the index is in the database
            server = request.getfixturevalue("postgres_server")
            sparse = "pg_textsearch" if store.endswith("pg_textsearch") else "sql"
            if sparse == "pg_textsearch" and not server.text_search:
                pytest.skip("the test server has no pg_textsearch in shared_preload_libraries")
            settings = {"provider": "postgres", "url": server.url,
                        "postgres": {"schema": request.getfixturevalue("postgres_schema"),
                                     "sparse": sparse}}
            reader_root = tmp_path / "elsewhere"
            reader_root.mkdir()
        elif store == "chroma server":  # readers in the writer's folder: its BM25 index is there
            pytest.importorskip("chromadb", reason="the chroma extra is not installed")
            if not ChromaServer.available():
                pytest.skip("the 'chroma' command is not installed")
            chroma = servers.enter_context(ChromaServer(tmp_path / "chroma-server"))
            settings = {"provider": "chroma", "url": chroma.url, "collection_name": "readers"}
        if settings is not None:
            config = config.model_copy(update={"vector_store": type(
                config.vector_store).model_validate(settings)})
        extra = [json.dumps(settings)] if settings is not None else []
        with RAGEngine(config, root) as writer:  # held open by this process the whole time
            writer.index_directory()
            readers = [subprocess.Popen([sys.executable, str(CHILD), str(reader_root), str(TESTS),
                                         str(count_files[i]), str(stop_file), str(i), *extra],
                                        stderr=subprocess.PIPE, text=True)
                       for i in range(READERS)]

            def wait_for_readers(done: int) -> None:
                """Count-bound: every reader searches a few more times before the next round."""
                while min(searches_done(count_files)) < done * SEARCHES_PER_ROUND:
                    assert all(r.poll() is None for r in readers), [r.stderr.read() for r in readers
                                                                    if r.poll() is not None]
                    time.sleep(0.05)

            try:
                reindex_rounds(writer, root, rng, versions, ROUNDS, wait_for_readers)
            finally:
                stop_file.touch()
                outcomes = [(r.wait(120), r.stderr.read()) for r in readers]
    assert all(code == 0 for code, _ in outcomes), outcomes
    served = sum(searches_done(count_files))
    assert served >= READERS * ROUNDS * SEARCHES_PER_ROUND
    print(f"\nreaders: {READERS} processes served {served} searches while a fifth process held the "
          f"index open for writing and ran {ROUNDS} re-index rounds")


def test_embedded_chroma_refuses_a_reader_beside_its_writer(tmp_path: Path) -> None:
    pytest.importorskip("chromadb")
    write(tmp_path, "a.py", "def alpha():\n    return 1\n")
    config = hash_config(vector_store={"provider": "chroma"})
    with RAGEngine(config, tmp_path) as writer:
        writer.index_directory()
        with pytest.raises(IndexLockedError, match="cannot be read beside its writer"):
            RAGEngine(config, tmp_path, read_only=True)
    with RAGEngine(config, tmp_path, read_only=True) as reader:
        assert reader.count() == 1
        with pytest.raises(IndexLockedError, match="or by processes reading it"):
            RAGEngine(config, tmp_path)  # no writer while a reader holds embedded Chroma


def test_a_reader_cannot_write(tmp_path: Path) -> None:
    write(tmp_path, "a.py", "def alpha():\n    return 1\n")
    config = hash_config(vector_store={"provider": "turboquant"})
    with RAGEngine(config, tmp_path) as writer:
        writer.index_directory()
    from ragloom import ReadOnlyError

    with RAGEngine(config, tmp_path, read_only=True) as reader:
        with pytest.raises(ReadOnlyError, match="reading only"):
            reader.index_directory()
        with pytest.raises(ReadOnlyError):
            reader.delete_documents_by_path("a.py")


def _listing(folder: Path) -> list[tuple[str, int]]:
    return sorted((str(p.relative_to(folder)), p.stat().st_size) for p in folder.rglob("*"))


def test_a_reader_where_the_lock_files_cannot_be_created_reads_and_creates_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A read-only folder or file system (a container image, a shared mount): the lock
    files cannot be created there (as root a chmod is ignored, so the folder is reported
    read-only where the lock asks, and creating a lock fails as it would)."""
    import sqlite3

    import filelock

    from ragloom import locking

    write(tmp_path, "a.py", "def alpha():\n    return 'rockets'\n")
    config = hash_config(vector_store={"provider": "turboquant"})
    with RAGEngine(config, tmp_path) as engine:
        engine.index_directory()
    index = tmp_path / ".ragloom"
    for lock in [p for p in index.iterdir() if ".lock" in p.name or p.name.startswith("lock")]:
        lock.unlink()  # as if the index was copied without its lock files
    before = _listing(tmp_path)

    def no_lock(*args: object, **kwargs: object) -> None:
        raise sqlite3.OperationalError("attempt to write a readonly database")

    monkeypatch.setattr(locking, "writable", lambda folder: folder != index)
    monkeypatch.setattr(filelock, "ReadWriteLock", no_lock)
    with RAGEngine(config, tmp_path, read_only=True) as reader:
        assert reader.search("rockets alpha")[0].metadata["path"] == "a.py"
    created = {name for name, _ in _listing(tmp_path)} - {name for name, _ in before}
    assert not created  # not even SQLite's -shm/-wal: an idle index is not in WAL mode


def test_a_reader_on_a_read_only_mount_searches_and_creates_nothing(tmp_path: Path) -> None:
    """The real thing where the machine allows it: the index bind-mounted read-only in a
    private mount namespace (root with ``unshare``), searched by a child process."""
    import shutil

    if shutil.which("unshare") is None or sys.platform != "linux":
        pytest.skip("needs Linux with unshare")
    probe = subprocess.run(["unshare", "-m", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"cannot make a mount namespace here: {probe.stderr.decode().strip()}")
    source, mount = tmp_path / "project", tmp_path / "mnt"
    write(source, "a.py", "def alpha():\n    return 'rockets'\n")
    mount.mkdir()
    config = hash_config(vector_store={"provider": "turboquant"})
    with RAGEngine(config, source) as engine:
        engine.index_directory()
    for lock in (source / ".ragloom").iterdir():
        if ".lock" in lock.name or lock.name.startswith("lock"):
            lock.unlink()
    before = _listing(source)
    search = ("import sys; sys.path.insert(0, sys.argv[2]); from helpers import hash_config; "
              "from ragloom import RAGEngine; "
              "engine = RAGEngine(hash_config(vector_store={'provider': 'turboquant'}), sys.argv[1], "
              "read_only=True); "
              "print(engine.search('rockets alpha')[0].metadata['path']); engine.close()")
    script = (f"mount --bind {source} {mount} && mount -o remount,bind,ro {mount} && "
              f"touch {mount}/probe 2>/dev/null && echo WRITABLE; "
              f"{sys.executable} -c \"{search}\" {mount} {TESTS}")
    done = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True,
                          timeout=300)
    if "mount:" in done.stderr and "a.py" not in done.stdout:
        pytest.skip(f"cannot mount here: {done.stderr.strip()}")
    assert "WRITABLE" not in done.stdout
    assert done.stdout.strip().splitlines()[-1:] == ["a.py"], done.stderr
    assert _listing(source) == before
