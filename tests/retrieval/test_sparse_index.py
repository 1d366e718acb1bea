"""The BM25 side of a persistent index: saved beside the store, reopened without
re-tokenizing, rebuilt when it disagrees with the store."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("chromadb", reason="the chroma extra is not installed")

from helpers import hash_config, write  # noqa: E402
from ragloom import RAGEngine  # noqa: E402
from ragloom.retrieval import sparse as sparse_module  # noqa: E402

CONFIG = hash_config(vector_store={"provider": "chroma"})


def make_project(root: Path) -> None:
    write(root, "a.py", "def frobnicate(widget):\n    return widget\n")
    write(root, "b.md", "# Orbits\nSatellites circle the earth.\n")


def bm25_file(project: Path) -> Path:
    return project / ".ragloom" / "bm25_chroma_ragloom.segments"


def test_reopen_loads_without_retokenizing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_project(tmp_path)
    with RAGEngine(CONFIG, tmp_path) as engine:
        engine.index_directory()
    assert (bm25_file(tmp_path) / "segments.json").is_file()
    calls: list[str] = []
    original = sparse_module.SparseIndex.add
    monkeypatch.setattr(sparse_module.SparseIndex, "add",
                        lambda self, *a: calls.append("add") or original(self, *a))
    with RAGEngine(CONFIG, tmp_path) as engine:
        hits = engine.sparse.search("frobnicate", 5)
        assert len(hits) == 1
        assert engine.store.get([hits[0][0]])[0].metadata["path"] == "a.py"
    assert calls == []


def test_missing_or_stale_bm25_file_is_rebuilt(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    make_project(tmp_path)
    with RAGEngine(CONFIG, tmp_path) as engine:
        engine.index_directory()
        count = engine.count()
    shutil.rmtree(bm25_file(tmp_path))
    with caplog.at_level(logging.INFO, logger="ragloom"), RAGEngine(CONFIG, tmp_path) as engine:
        assert len(engine.sparse) == count
        assert "rebuilding" in caplog.text
        # A write that reached the store but not the BM25 file (a crash in between).
        engine.store.upsert(["orphan"], np.ones((1, 384)), ["zebra crossing"], [{"path": "z.txt"}])
    with RAGEngine(CONFIG, tmp_path) as engine:
        assert [doc for doc, _ in engine.sparse.search("zebra", 5)] == ["orphan"]


def test_tokenizer_change_rebuilds(tmp_path: Path) -> None:
    make_project(tmp_path)
    with RAGEngine(CONFIG, tmp_path) as engine:
        engine.index_directory()
    unstemmed = hash_config(vector_store={"provider": "chroma"}, retrieval={"stemming": False})
    with RAGEngine(unstemmed, tmp_path) as engine:
        assert engine.sparse.search("satellites", 5)
        assert engine.sparse.index.tokenizer == engine.sparse.tokenizer.signature


def test_names_and_copies_are_found_from_the_saved_lookups(tmp_path: Path) -> None:
    """Exact-name lookup and content-hash copies answer as a table built from every
    chunk's metadata does, before and after reopening (no metadata scan at open)."""
    from ragloom.retrieval.sparse import SparseIndex
    from ragloom.retrieval.symbols import SymbolTable

    chunks = {
        "c1": {"symbol": "Parser.parse", "content_hash": "aa"},
        "c2": {"symbols": "parse, tokenize", "content_hash": "bb"},
        "c3": {"symbol": "Lexer.tokenize", "part": 1, "content_hash": "aa"},
        "c4": {"symbol": "render", "content_hash": "cc"},
        "c5": {"symbol": "a.render", "content_hash": "aa"},
        "c6": {"symbol": "b.render"},
        "c7": {"symbol": "c.render"},
    }
    index = SparseIndex(tmp_path / "bm25")
    index.add(list(chunks)[:4], ["parse text"] * 4, list(chunks.values())[:4])
    index.persist()
    index.add(list(chunks)[4:], ["render text"] * 3, list(chunks.values())[4:])
    index.remove(["c2"])
    live = {doc: meta for doc, meta in chunks.items() if doc != "c2"}
    table = SymbolTable(live.items())
    queries = ["Parser.parse", "parse", "tokenize", "render", "a.render()", "Lexer.tokenize"]
    for reopened in (False, True):
        if reopened:
            index.persist()
            index = SparseIndex(tmp_path / "bm25")
        assert [index.defining(q) for q in queries] == [table.lookup(q) for q in queries]
        assert [doc for doc, _ in index.chunks_with("content_hash", ["aa"])] == ["c1", "c3", "c5"]
        assert index.chunks_with("content_hash", ["bb"]) == []
        assert [doc for doc, _ in index.chunks_with("content_hash", ["bb", "aa", "aa"])] == [
            "c1", "c3", "c5"]
