"""Faults with a way out: a damaged index file is named with what to do, a rebuild on
purpose recovers from the source files without touching what is not ragloom's, an engine
whose opening or closing fails leaks nothing, and a racily-clean file is read again."""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import hash_config, write
from ragloom import CorruptIndexError, IndexMismatchError, RAGEngine
from ragloom.indexing.manifest import MTIME_GRANULARITY_NS

TURBOQUANT = {"provider": "turboquant"}


def indexed_project(root: Path) -> Path:
    for index in range(6):
        write(root, f"src/module_{index}.py", f"def function_{index}():\n    return 'value {index}'\n")
    with RAGEngine(hash_config(vector_store=TURBOQUANT), root) as engine:
        engine.index_directory()
        write(root, "src/module_0.py", "def function_0():\n    return 'second version'\n")
        engine.index_directory()  # a second segment
    write(root, ".ragloom/notes.txt", "the user's own file\n")
    return root / ".ragloom"


def damage(index: Path, what: str) -> Path:
    """Damage one file of the index as a disk or a careless hand would; returns it."""
    store = index / "turboquant_ragloom"
    if what == "flipped-segment":
        target = sorted(store.glob("*.seg"))[-1]
        data = bytearray(target.read_bytes())
        for offset in range(18, 34):  # the segment's header (array bytes carry no checksum)
            data[offset] ^= 0x5A
        target.write_bytes(bytes(data))
    elif what == "garbage-segment-list":
        target = store / "segments.json"
        target.write_bytes(b"\x00\x01 not json {{")
    elif what == "truncated-manifest":
        target = index / "manifest_turboquant_ragloom.sqlite"
        target.write_bytes(target.read_bytes()[:4096 + 100])
    else:
        raise AssertionError(what)
    return target


def ragloom(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = shutil.which("ragloom")
    argv = [command] if command else [sys.executable, "-m", "ragloom"]
    return subprocess.run([*argv, *args], cwd=project, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONWARNINGS": "ignore"})


@pytest.mark.parametrize("what", ["flipped-segment", "garbage-segment-list", "truncated-manifest"])
def test_a_damaged_index_is_named_and_rebuilt_on_purpose_from_the_sources(tmp_path: Path,
                                                                          what: str) -> None:
    index = indexed_project(tmp_path)
    damaged = damage(index, what)
    for read_only in (True, False):
        with pytest.raises(CorruptIndexError, match=rf"{re.escape(str(damaged))} is damaged .*"
                           r"'ragloom index --rebuild'"):
            RAGEngine(hash_config(vector_store=TURBOQUANT), tmp_path, read_only=read_only)
    write(tmp_path, "ragloom.toml", "[rag]\nembedding.provider = 'hash'\n[rag.vector_store]\n"
                                    "provider = 'turboquant'\n")
    refused = ragloom(tmp_path, "index")
    assert refused.returncode == 1 and str(damaged) in refused.stderr and "--rebuild" in refused.stderr
    rebuilt = ragloom(tmp_path, "index", "--rebuild")
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert "6 indexed" in rebuilt.stdout
    with RAGEngine(hash_config(vector_store=TURBOQUANT), tmp_path, read_only=True) as reader:
        assert reader.count() == 6 and reader.verify().ok
        assert reader.search("second version", top_k=1)[0].metadata["path"] == "src/module_0.py"
    assert (index / "notes.txt").read_text() == "the user's own file\n"


def test_reindex_rebuild_recovers_too(tmp_path: Path) -> None:
    index = indexed_project(tmp_path)
    damage(index, "garbage-segment-list")
    with RAGEngine(hash_config(vector_store=TURBOQUANT), tmp_path, rebuild=True) as engine:
        report = engine.reindex()
        assert report.files_indexed == 6 and engine.verify().ok


def test_a_garbage_embedding_cache_never_blocks_a_write(tmp_path: Path) -> None:
    index = indexed_project(tmp_path)
    (index / "embeddings.sqlite").write_bytes(b"garbage " * 4096)
    for suffix in ("-wal", "-shm"):
        (index / f"embeddings.sqlite{suffix}").unlink(missing_ok=True)
    write(tmp_path, "src/new.py", "def brand_new():\n    return 1\n")
    with RAGEngine(hash_config(vector_store=TURBOQUANT), tmp_path) as engine:
        report = engine.index_directory()
        assert report.files_indexed == 1 and report.chunks_embedded == 1
    assert any(p.name.startswith("embeddings.sqlite.corrupt-") for p in index.iterdir())


def test_another_model_is_refused_and_the_index_kept(tmp_path: Path) -> None:
    indexed_project(tmp_path)
    with pytest.raises(IndexMismatchError, match=r"\(384-d\).*not hash/feature-hash-v1 \(128-d\)"):
        RAGEngine(hash_config(embedding={"dim": 128}, vector_store=TURBOQUANT), tmp_path)
    with RAGEngine(hash_config(vector_store=TURBOQUANT), tmp_path, read_only=True) as reader:
        assert reader.count() == 6


class ClosingCounter:
    """Wraps a store's close: counts calls, optionally failing the first."""

    def __init__(self, store, fail_first: bool = False) -> None:  # type: ignore[no-untyped-def]
        self.calls = 0
        self.fail_first = fail_first
        self._close = store.close
        store.close = self

    def __call__(self) -> None:
        self.calls += 1
        if self.fail_first and self.calls == 1:
            raise OSError("disk went away")
        self._close()


def test_an_engine_whose_opening_fails_closes_what_it_opened(tmp_path: Path) -> None:
    """The manifest is damaged after the store opened: the store is closed and the index
    lock released (the next writer opens), nothing is left behind."""
    from ragloom.stores.base import EmbeddingSpec
    from ragloom.stores.turboquant import TurboQuantStore

    index = indexed_project(tmp_path)
    damage(index, "truncated-manifest")
    store = TurboQuantStore(index / "turboquant_ragloom", EmbeddingSpec("hash/feature-hash-v1", 384))
    counter = ClosingCounter(store)
    with pytest.raises(CorruptIndexError):
        RAGEngine(hash_config(vector_store=TURBOQUANT), tmp_path, vector_store=store)
    assert counter.calls == 1
    with RAGEngine(hash_config(vector_store=TURBOQUANT), tmp_path, rebuild=True) as engine:
        assert engine.index_directory().files_indexed == 6  # the lock was released


def test_a_failed_close_still_releases_everything_and_a_second_close_finishes(tmp_path: Path) -> None:
    """Persisting fails on close (a full disk): the store, manifest, cache and index lock
    are released all the same, the error is raised, and a second close is quiet."""
    indexed_project(tmp_path)
    engine = RAGEngine(hash_config(vector_store=TURBOQUANT), tmp_path)
    write(tmp_path, "src/late.py", "def late():\n    return 2\n")
    engine.index_directory()

    def full_disk() -> None:
        raise OSError(28, "No space left on device")

    engine.sparse.persist = full_disk  # type: ignore[method-assign]
    with pytest.raises(OSError, match="No space left"):
        engine.close()
    with pytest.raises(sqlite3.ProgrammingError, match="closed"):  # closed despite the failure before it
        engine._manifest.records()
    engine.close()  # nothing left to do, and no error
    with RAGEngine(hash_config(vector_store=TURBOQUANT), tmp_path) as writer:  # lock released
        assert writer.count() == 7


def test_a_file_rewritten_with_the_same_size_and_mtime_just_after_indexing_is_read_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Racy git: a rewrite within the file system's mtime granularity may keep the size and
    mtime; a file whose mtime is that close to its indexing is hashed again. The indexing
    time is pinned half a second after the file's mtime (however slow the machine)."""
    from ragloom.indexing import writer

    path = write(tmp_path, "notes.txt", "launch window opens at dawn\n")
    config = hash_config(vector_store=TURBOQUANT)
    with RAGEngine(config, tmp_path) as engine:
        pinned = path.stat().st_mtime_ns / 1e9 + 0.5
        monkeypatch.setattr(writer.time, "time", lambda: pinned)
        engine.index_directory()
        monkeypatch.undo()
        stat = path.stat()
        path.write_text("landed window opens at dusk\n")  # same size
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # same mtime
        assert path.stat().st_size == stat.st_size
        report = engine.index_directory()
        assert report.files_indexed == 1
        assert "landed" in engine.search("landed dusk", top_k=1)[0].text
        again = engine.index_directory()  # recorded anew: hashed again, found unchanged
        assert (again.files_indexed, again.files_unchanged) == (0, 1)


def test_an_old_file_with_unchanged_size_and_mtime_is_not_read(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path, "notes.txt", "launch window opens at dawn\n")
    old = path.stat().st_mtime_ns - 10 * MTIME_GRANULARITY_NS
    os.utime(path, ns=(old, old))
    with RAGEngine(hash_config(vector_store=TURBOQUANT), tmp_path) as engine:
        engine.index_directory()
        from ragloom.indexing import indexer

        reads: list[str] = []
        real = indexer.read_file
        monkeypatch.setattr(indexer, "read_file", lambda *a, **k: reads.append(a[1]) or real(*a, **k))
        assert engine.index_directory().files_unchanged == 1
        assert reads == []
