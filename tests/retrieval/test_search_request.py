"""A search's request is checked once where it enters: the mode as a SearchMode, the
filters compiled once per query (a store compiles what it is handed on its own side)."""

from __future__ import annotations

from pathlib import Path

import pytest

import ragloom.retrieval.searcher as searcher_module
from helpers import hash_config, write
from ragloom import RAGEngine
from ragloom.retrieval.search_mode import SEARCH_MODES, SearchMode


def test_a_mode_is_one_of_three_and_anything_else_is_named() -> None:
    assert SEARCH_MODES == ("dense", "sparse", "hybrid")
    assert SearchMode.of("sparse") is SearchMode.SPARSE and str(SearchMode.HYBRID) == "hybrid"
    with pytest.raises(ValueError, match=r"^unknown search mode 'Hybrid'; valid: dense, sparse, hybrid$"):
        SearchMode.of("Hybrid")


def test_an_unknown_mode_is_refused_even_by_a_disabled_engine(tmp_path: Path) -> None:
    with RAGEngine(hash_config(enabled=False), tmp_path) as engine:
        with pytest.raises(ValueError, match=r"^unknown search mode 'bm25'"):
            engine.search("anything", mode="bm25")


@pytest.mark.parametrize("mode", ["dense", "sparse", "hybrid"])
def test_filters_are_compiled_once_per_query(tmp_path: Path, monkeypatch, mode: str) -> None:
    write(tmp_path, "a.md", "# Tokens\nRefresh tokens rotate every hour.\n")
    write(tmp_path, "b.md", "# Rockets\nRockets carry satellites into orbit.\n")
    calls: list[object] = []
    real = searcher_module.compile_filters

    def counting(filters):
        calls.append(filters)
        return real(filters)

    with RAGEngine(hash_config(), tmp_path) as engine:
        engine.index_directory()
        monkeypatch.setattr(searcher_module, "compile_filters", counting)
        response = engine.search_detailed("refresh tokens", filters={"path": "a.md"}, mode=mode)
    assert calls == [{"path": "a.md"}]
    assert response.mode == mode and [r.metadata["path"] for r in response.results] == ["a.md"]
