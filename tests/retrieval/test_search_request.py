"""A search's request is checked once where it enters: the mode as a SearchMode, the
filters compiled once per query (a store compiles what it is handed on its own side)."""

from __future__ import annotations

from pathlib import Path

import pytest

import ragloom.filters as filters_module
import ragloom.retrieval.searcher as searcher_module
from helpers import hash_config, write
from ragloom import RAGEngine
from ragloom.retrieval.search_mode import SEARCH_MODES, SearchMode
from ragloom.stores.memory import MemoryVectorStore


def test_a_mode_is_one_of_three_and_anything_else_is_named() -> None:
    assert SEARCH_MODES == ("dense", "sparse", "hybrid")
    assert SearchMode.of("sparse") is SearchMode.SPARSE and str(SearchMode.HYBRID) == "hybrid"
    with pytest.raises(ValueError, match=r"^unknown search mode 'Hybrid'; valid: dense, sparse, hybrid$"):
        SearchMode.of("Hybrid")


def test_an_unknown_mode_is_refused_even_by_a_disabled_engine(tmp_path: Path) -> None:
    with RAGEngine(hash_config(enabled=False), tmp_path) as engine:
        with pytest.raises(ValueError, match=r"^unknown search mode 'bm25'"):
            engine.search("anything", mode="bm25")


def counting_compiles(monkeypatch) -> list[object]:
    """The filters every ``compile_filters`` call of the searcher (and of ``filters``' own
    helpers, such as ``resolve_globs``) is handed from now on."""
    calls: list[object] = []
    real = filters_module.compile_filters

    def counting(filters):
        calls.append(filters)
        return real(filters)

    monkeypatch.setattr(searcher_module, "compile_filters", counting)
    monkeypatch.setattr(filters_module, "compile_filters", counting)
    return calls


@pytest.mark.parametrize("mode", ["dense", "sparse", "hybrid"])
def test_filters_are_compiled_once_per_query(tmp_path: Path, monkeypatch, mode: str) -> None:
    write(tmp_path, "a.md", "# Tokens\nRefresh tokens rotate every hour.\n")
    write(tmp_path, "b.md", "# Rockets\nRockets carry satellites into orbit.\n")
    with RAGEngine(hash_config(), tmp_path) as engine:
        engine.index_directory()
        calls = counting_compiles(monkeypatch)
        response = engine.search_detailed("refresh tokens", filters={"path": "a.md"}, mode=mode)
    assert calls == [{"path": "a.md"}]
    assert response.mode == mode and [r.metadata["path"] for r in response.results] == ["a.md"]


def test_a_store_without_globs_gets_them_resolved_from_the_filters_compiled_once(
        tmp_path: Path, monkeypatch) -> None:
    """The searcher turns a ``$glob`` into ``$in`` for a store that cannot match globs,
    from the conditions it compiled, not by compiling the filters again."""
    class NoGlobs(MemoryVectorStore):
        glob_filters = False
        handed: list[object] = []

        def query(self, vector, top_k, filters=None):
            self.handed.append(filters)
            return super().query(vector, top_k, filters)

    write(tmp_path, "docs/a.md", "# Tokens\nRefresh tokens rotate every hour.\n")
    write(tmp_path, "b.md", "# Tokens\nTokens are refreshed at night.\n")
    with RAGEngine(hash_config(), tmp_path, vector_store=NoGlobs()) as engine:
        engine.index_directory()
        calls = counting_compiles(monkeypatch)
        results = engine.search("refresh tokens", filters={"path": "docs/*.md"}, mode="hybrid")
    assert calls == [{"path": "docs/*.md"}]
    assert NoGlobs.handed[-1] == {"path": {"$in": ["docs/a.md"]}}
    assert [r.metadata["path"] for r in results] == ["docs/a.md"]
