"""[rag.limits]: each collection limit refuses the call that would exceed it, names the
figures, and writes nothing (manifest, store and BM25 as they were), on every store; a
call that does not raise a figure passes; status shows usage against limits."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from helpers import every_store, hash_config, write
from ragloom import QuotaExceededError, RAGEngine
from ragloom.config import parse_config
from ragloom.errors import ConfigError

STORES = every_store()


def snapshot(engine: RAGEngine) -> tuple:
    """Everything a refused call must leave as it was: records, chunks, BM25 paths and, for a
    store in files, every byte of the index folder but its lock files."""
    records = {path: (r.size, r.sha256, r.chunk_ids) for path, r in engine._manifest.records().items()}
    ids = sorted(engine.store.ids())
    chunks = [(c.id, c.text) for c in engine.store.get(ids)]
    files = {str(file.relative_to(engine.index_dir)): file.read_bytes()
             for file in sorted(engine.index_dir.rglob("*"))
             if file.is_file() and "lock" not in file.name} if engine.index_dir.is_dir() else {}
    return records, chunks, engine.sparse.distinct_values("path"), engine.count(), files


def three_files(root: Path) -> None:
    for name in ("a", "b", "c"):
        write(root, f"{name}.md", f"# {name}\n" + "".join(f"line {i} of {name}\n" for i in range(3)))


@pytest.mark.parametrize("store", STORES)
def test_max_files_refuses_the_run_that_would_exceed_it_and_writes_nothing(
        store: str, store_config: Any, tmp_path: Path) -> None:
    root = tmp_path / "p"
    three_files(root)
    config = store_config(store, max_files=3)
    with RAGEngine(config, root) as engine:
        assert engine.index_directory().files_indexed == 3
        before = snapshot(engine)
        write(root, "d.md", "# d\nthe fourth file\n")
        write(root, "a.md", "# a\nchanged too\n")  # a replaced file adds no file
        with pytest.raises(QuotaExceededError) as caught:
            engine.index_directory()
        assert (caught.value.limit, caught.value.current, caught.value.adding,
                caught.value.maximum) == ("max_files", 3, 1, 3)
        assert str(caught.value) == (
            f"max_files of collection '{config.vector_store.collection_name}' would be exceeded: 3 "
            "now + 1 from this call = 4 > limit 3; nothing of this call was written ([rag.limits] max_files)")
        assert snapshot(engine) == before and engine._indexer.quota.planned == {}
        (root / "b.md").unlink()  # the same run now removes one: 3 files, allowed
        report = engine.index_directory()
        assert (report.files_indexed, report.files_removed) == (2, 1)
        assert engine.status().limits == {"max_files": {"used": 3, "limit": 3}}


@pytest.mark.parametrize("store", STORES)
def test_max_chunks_counts_the_chunks_a_run_adds_minus_those_it_replaces(
        store: str, store_config: Any, tmp_path: Path) -> None:
    root = tmp_path / "p"
    three_files(root)
    with RAGEngine(store_config(store), root) as free:
        free.index_directory()
        used = free.count()
    config = store_config(store, max_chunks=used + 1)
    with RAGEngine(config, root) as engine:
        engine.index_directory()
        before = snapshot(engine)
        write(root, "big.md", "# big\n" + "".join(f"sentence number {i} is here\n" for i in range(20)))
        with pytest.raises(QuotaExceededError) as caught:
            engine.index_directory()
        error = caught.value
        assert (error.limit, error.current, error.maximum) == ("max_chunks", used, used + 1)
        assert error.adding > 1 and error.tenant is None
        assert error.scope == f"collection '{config.vector_store.collection_name}'"
        assert snapshot(engine) == before
        (root / "big.md").unlink()
        write(root, "small.md", "one line\n")
        assert engine.index_directory().chunks_added == 1  # exactly at the limit
        assert engine.count() == used + 1


@pytest.mark.parametrize("store", STORES)
def test_max_bytes_refuses_ingest_text_and_add_documents_before_writing(
        store: str, store_config: Any, tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    with RAGEngine(store_config(store, max_bytes=100), root) as engine:
        engine.ingest_text("first", "x" * 60)
        before = snapshot(engine)
        with pytest.raises(QuotaExceededError) as caught:
            engine.add_documents(["second", "third"], ["y" * 30, "z" * 11])
        assert (caught.value.limit, caught.value.current, caught.value.adding) == ("max_bytes", 60, 41)
        assert snapshot(engine) == before
        engine.ingest_text("first", "x" * 100)  # replacing: 100 bytes in all, allowed
        assert engine.status().limits == {"max_bytes": {"used": 100, "limit": 100}}
        with pytest.raises(QuotaExceededError):
            engine.ingest_text("fourth", "é")  # 2 bytes in UTF-8


def test_index_file_is_checked_and_a_call_that_lowers_usage_passes(tmp_path: Path) -> None:
    root = tmp_path / "p"
    three_files(root)
    with RAGEngine(hash_config(vector_store={"provider": "turboquant"}), root) as engine:
        engine.index_directory()
    config = hash_config(vector_store={"provider": "turboquant"}, limits={"max_files": 2})
    with RAGEngine(config, root) as engine:  # a lowered limit: the collection is over it
        before = snapshot(engine)
        with pytest.raises(QuotaExceededError):
            engine.index_file(write(root, "d.md", "another\n"))
        assert snapshot(engine) == before
        write(root, "a.md", "# a\nshorter now\n")
        assert engine.index_file(root / "a.md").files_indexed == 1  # replaces: no figure rises
        assert engine.delete_documents_by_path(root / "b.md") > 0


def test_limits_config_is_validated_with_the_key_and_value_named() -> None:
    with pytest.raises(ConfigError, match=r"'limits.max_chunks' = 0: Input should be greater"):
        parse_config({"limits": {"max_chunks": 0}})
    with pytest.raises(ConfigError, match=r"unknown key 'limits.max_file' \(did you mean 'max_files'"):
        parse_config({"limits": {"max_file": 3}})
    with pytest.raises(ConfigError, match=r"'limits.max_bytes' = '5': must be a whole number"):
        parse_config({"limits": {"max_bytes": "5"}})
    with pytest.raises(ConfigError, match=r"'limits.max_memory_turns' = 1000000001"):
        parse_config({"limits": {"max_memory_turns": 1_000_000_001}})
    assert parse_config({"limits": {"max_bytes": 10**11}}).limits.active() == {"max_bytes": 10**11}


def test_status_from_disk_and_the_cli_show_usage_against_limits(tmp_path: Path) -> None:
    import io

    from ragloom.apps.status_view import print_status
    from ragloom.indexing.disk_status import read_status

    root = tmp_path / "p"
    three_files(root)
    config = hash_config(vector_store={"provider": "turboquant"}, limits={"max_files": 4, "max_chunks": 60})
    with RAGEngine(config, root) as engine:
        engine.index_directory()
        chunks = engine.count()
        from_engine = engine.status()
    quick = read_status(config, root)
    assert quick is not None and quick.limits == from_engine.limits == {
        "max_chunks": {"used": chunks, "limit": 60}, "max_files": {"used": 3, "limit": 4}}
    out = io.StringIO()
    print_status(quick, None, False, out)
    assert f"limits:\n  max_chunks: {chunks} of 60 ({100 * chunks / 60:.0f}%)\n  max_files: 3 of 4 (75%)" \
        in out.getvalue()
    assert read_status(hash_config(vector_store={"provider": "turboquant"}), root).limits == {}


def test_a_refused_reindex_keeps_the_chunks_and_leaves_the_files_marked_for_rechunking(
        tmp_path: Path) -> None:
    root = tmp_path / "p"
    three_files(root)
    with RAGEngine(hash_config(vector_store={"provider": "turboquant"}), root) as engine:
        engine.index_directory()
        chunks = engine.count()
    smaller = hash_config(vector_store={"provider": "turboquant"}, chunk_size=12, chunk_overlap=0,
                          limits={"max_chunks": chunks})
    with RAGEngine(smaller, root) as engine:
        stored = sorted(engine.store.ids())
        with pytest.raises(QuotaExceededError, match="max_chunks"):
            engine.reindex()
        assert sorted(engine.store.ids()) == stored
        assert {r.size for r in engine._manifest.records().values()} == {-1}  # marked, as documented


def test_a_limited_run_reads_and_chunks_each_changed_file_once(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    import ragloom.indexing.indexer as indexer_module

    reads: list[str] = []
    real_read = indexer_module.read_file
    monkeypatch.setattr(indexer_module, "read_file",
                        lambda path, *args: reads.append(path.name) or real_read(path, *args))
    root = tmp_path / "p"
    three_files(root)
    config = hash_config(vector_store={"provider": "turboquant"}, limits={"max_chunks": 1000})
    with RAGEngine(config, root) as engine:
        assert engine.index_directory().files_indexed == 3
        assert sorted(reads) == ["a.md", "b.md", "c.md"]
        write(root, "b.md", "# b\nchanged\n")
        reads.clear()
        engine.index_directory()  # files written within the mtime granularity are read again
        assert sorted(reads) == ["a.md", "b.md", "c.md"]
        reads.clear()
        engine.index_file(root / "a.md")
        assert reads == ["a.md"] and engine._indexer.quota.planned == {}


def test_the_quota_check_closes_its_reading_before_it_refuses(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The files read ahead for the check are closed when the check ends, refused or not:
    left to the garbage collector (the refusal's traceback holds the reader), the reader's
    threads were joined wherever it ran, inside another thread's start: a run hung."""
    import ragloom.indexing.quotas as quotas

    states: list[str] = []
    real = quotas.read_ahead

    def watched(*args: Any, **kwargs: Any) -> Any:
        states.append("open")
        try:
            yield from real(*args, **kwargs)
        finally:
            states[-1] = "closed"

    monkeypatch.setattr(quotas, "read_ahead", watched)
    root = tmp_path / "p"
    three_files(root)
    config = hash_config(index_dir=str(tmp_path / "index"), limits={"max_files": 2})
    with RAGEngine(config, root) as engine, pytest.raises(QuotaExceededError) as caught:
        engine.index_directory()
    assert caught.value.__traceback__ is not None  # still held, and yet:
    assert states == ["closed"]
