"""RAGEngine's public methods, and their async twins, check their arguments' types first:
a TypeError or ValueError naming the argument, never a raw error from deep inside
(``top_k=2.5`` was "slice indices must be integers", ``query=None`` an AttributeError)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from helpers import hash_config, write
from ragloom import RAGEngine


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[RAGEngine]:
    write(tmp_path, "docs/a.md", "# A\n\nRockets launch satellites.\n")
    with RAGEngine(hash_config(), tmp_path) as opened:
        opened.index_directory()
        yield opened


SEARCHES: list[tuple[dict[str, Any], type[Exception], str]] = [
    ({"top_k": 2.5}, TypeError, r"top_k must be a whole number, got 2\.5 \(float\)"),
    ({"top_k": "5"}, TypeError, r"top_k must be a whole number, got '5' \(str\)"),
    ({"top_k": True}, TypeError, r"top_k must be a whole number, got True \(bool\)"),
    ({"top_k": 0}, ValueError, r"top_k must be at least 1, got 0"),
    ({"query": None}, TypeError, r"query must be a string, got None \(NoneType\)"),
    ({"query": 5}, TypeError, r"query must be a string, got 5 \(int\)"),
    ({"query": b"rockets"}, TypeError, r"query must be a string, got b'rockets' \(bytes\)"),
    ({"filters": [{"language": "text"}]}, TypeError, r"filters must be a mapping .* \(list\)"),
    ({"filters": "language"}, TypeError, r"filters must be a mapping .* \(str\)"),
    ({"mode": 5}, TypeError, r"mode must be a string, got 5 \(int\)"),
    ({"mmr": "yes"}, TypeError, r"mmr must be True, False or None, got 'yes' \(str\)"),
    ({"min_score": "0.5"}, TypeError, r"min_score must be a number, got '0\.5' \(str\)"),
    ({"min_score": float("nan")}, ValueError, r"min_score must be a number, got NaN"),
]


@pytest.mark.parametrize(("arguments", "error", "message"), SEARCHES)
def test_search_arguments_are_checked(engine: RAGEngine, arguments: dict[str, Any],
                                      error: type[Exception], message: str) -> None:
    call = {"query": "rockets", **arguments}
    query = call.pop("query")
    with pytest.raises(error, match=message):
        engine.search(query, **call)
    with pytest.raises(error, match=message):
        engine.search_detailed(query, **call)
    with pytest.raises(error, match=message):
        asyncio.run(engine.asearch(query, **call))


CALLS: list[tuple[str, Callable[[RAGEngine], Any], type[Exception], str]] = [
    ("index_file(123)", lambda e: e.index_file(123), TypeError, r"path must be a path .* 123 \(int\)"),
    ("index_file(None)", lambda e: e.index_file(None), TypeError, r"path must be a path .* None"),
    ("index_directory(123)", lambda e: e.index_directory(123), TypeError, r"path must be a path"),
    ("include='*.md'", lambda e: e.index_directory(include="*.md"), TypeError,
     r"include must be a list of glob patterns, got '\*\.md' \(str\)"),
    ("exclude=[1]", lambda e: e.index_directory(exclude=[1]), TypeError,
     r"exclude: each pattern must be a string, got 1 \(int\)"),
    ("reindex(5)", lambda e: e.reindex(5), TypeError, r"path must be a path .* 5 \(int\)"),
    ("delete_documents_by_path(1)", lambda e: e.delete_documents_by_path(1), TypeError,
     r"path must be a path"),
    ("excluded_reason(1.5)", lambda e: e.excluded_reason(1.5), TypeError, r"path must be a path"),
    ("status('no')", lambda e: e.status(count_pending="no"), TypeError,
     r"count_pending must be True, False or None, got 'no'"),
    ("preload_results('5')", lambda e: e.preload_results("5"), TypeError,
     r"budget_tokens must be a whole number, got '5'"),
    ("ingest_text(123, ...)", lambda e: e.ingest_text(123, "text"), ValueError,
     r"source_id must be a non-empty string, got 123"),
    ("aindex_file(123)", lambda e: asyncio.run(e.aindex_file(123)), TypeError, r"path must be a path"),
]


@pytest.mark.parametrize(("label", "call", "error", "message"), CALLS, ids=[c[0] for c in CALLS])
def test_other_entry_points_check_their_arguments(engine: RAGEngine, label: str,
                                                  call: Callable[[RAGEngine], Any],
                                                  error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        call(engine)


def test_the_constructor_checks_its_arguments(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match=r"config must be a RAGConfig .* got 'ragloom.toml' \(str\)"):
        RAGEngine("ragloom.toml", tmp_path)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"base_dir must be a path .* got 123 \(int\)"):
        RAGEngine(hash_config(), 123)  # type: ignore[arg-type]


def test_a_cli_where_value_nested_thousands_deep_is_plain_text() -> None:
    import argparse

    from ragloom.apps.query_options import filters_from

    deep = "[" * 100_000 + "]" * 100_000
    args = argparse.Namespace(where=[f"tag={deep}", "n=5"], path=None)
    assert filters_from(args) == {"tag": deep, "n": 5}
