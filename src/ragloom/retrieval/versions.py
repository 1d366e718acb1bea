"""One version of each file per search, on a store whose data changes under its readers.

A Chroma server is written while other processes search it, with no snapshot to share:
between a writer's upsert of a file's new chunks and its delete of the chunks the new
version no longer has, the server holds chunks of both versions, and one search can get
both (``tests/stores/test_chroma_snapshot.py`` stops a writer right there). A file seen in
two versions keeps the version the reader's BM25 snapshot holds (the one its sparse half
ranked), else the version of its best result; the other version's chunks are dropped. On
every other store a search already reads one version (a snapshot, or a lock), and nothing
here changes its results.
"""

from __future__ import annotations

from ragloom.retrieval.sparse_base import SparseBackend
from ragloom.types import SearchResult


def one_version_per_file(results: list[SearchResult], sparse: SparseBackend) -> list[SearchResult]:
    """``results`` (in their order) without the chunks of a second version of a file."""
    found: dict[str, list[str]] = {}
    for result in results:
        path, version = result.metadata.get("path"), result.metadata.get("file_hash")
        if isinstance(path, str) and isinstance(version, str) and version not in found.get(path, []):
            found.setdefault(path, []).append(version)  # the best result's version first
    mixed = [path for path, seen in found.items() if len(seen) > 1]
    if not mixed:
        return results
    snapshot: dict[str, set[object]] = {}
    for _, metadata in sparse.chunks_with("path", mixed):
        snapshot.setdefault(str(metadata.get("path")), set()).add(metadata.get("file_hash"))
    kept: dict[str, str] = {}
    for path in mixed:
        held = [version for version in found[path] if version in snapshot.get(path, set())]
        kept[path] = held[0] if len(held) == 1 else found[path][0]
    return [result for result in results if result.metadata.get("path") not in kept
            or result.metadata.get("file_hash") == kept[str(result.metadata["path"])]]
