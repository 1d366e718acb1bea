"""A file seen in two versions in one search keeps one: the BM25 snapshot's, else its best
result's; every other result stays, in order."""

from __future__ import annotations

from ragloom.retrieval.sparse import SparseIndex
from ragloom.retrieval.versions import one_version_per_file
from ragloom.types import SearchResult


def result(chunk: str, path: str, version: str) -> SearchResult:
    return SearchResult(chunk, "text", {"path": path, "file_hash": version}, 0.5, 0.5)


def ids(results: list[SearchResult]) -> list[str]:
    return [r.id for r in results]


def test_whole_results_are_kept_as_they_are() -> None:
    results = [result("a0", "a.py", "v1"), result("b0", "b.py", "w1"), result("a1", "a.py", "v1")]
    assert one_version_per_file(results, SparseIndex()) is results


def test_the_bm25_snapshots_version_is_kept() -> None:
    sparse = SparseIndex()
    sparse.add(["a0", "a1"], ["rockets", "orbits"], [{"path": "a.py", "file_hash": "v1"}] * 2)
    results = [result("a0", "a.py", "v2"), result("b0", "b.py", "w1"), result("a2", "a.py", "v1"),
               result("a1", "a.py", "v2")]
    assert ids(one_version_per_file(results, sparse)) == ["b0", "a2"]


def test_without_a_snapshot_version_the_best_results_is_kept() -> None:
    results = [result("a0", "a.py", "v2"), result("a2", "a.py", "v1"), result("a1", "a.py", "v2"),
               result("t", "t.md", "x")]
    assert ids(one_version_per_file(results, SparseIndex())) == ["a0", "a1", "t"]
