"""Chunks already in the BM25 index whose vectors are not stored yet (progressive indexing).

An indexing run writes each window of files to BM25 first, with the chunks' text and
metadata in the ``unembedded`` table of the manifest's database, so a search answers from
the first seconds (BM25 over every chunk, dense over the embedded ones); the embeddings are
filled in behind, in the order the chunks were written, and each embedded window moves its
chunks from this table into the store. Rows left by an interrupted run are embedded by the
next one (their batches already embedded come from the embedding cache).

The table keeps a file version whole: its rows are replaced together with the file's BM25
entries (one journaled step), and a chunk leaves the table only after its vector is
durable in the store.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from ragloom.indexing.manifest import Manifest
from ragloom.retrieval.sparse_base import StoredChunks
from ragloom.stores.base import VectorStore
from ragloom.types import Chunk

_PAGE = 500  # ids per SQL statement (SQLite's variable limit is 999 on old builds)


class Unembedded:
    """The ``unembedded`` table of one manifest."""

    def __init__(self, manifest: Manifest) -> None:
        self.manifest = manifest
        self._present = not manifest.read_only or manifest.has_table("unembedded")

    def replace(self, files: Mapping[str, Sequence[Chunk]]) -> None:
        """These files' chunks wait for their vectors (the rows of their earlier versions go)."""
        rows = [(chunk.id, path, chunk.text, json.dumps(chunk.metadata))
                for path, chunks in files.items() for chunk in chunks]
        with self.manifest.transaction() as db:
            db.executemany("DELETE FROM unembedded WHERE path = ?", [(path,) for path in files])
            db.executemany("INSERT OR REPLACE INTO unembedded (id, path, text, metadata) "
                           "VALUES (?, ?, ?, ?)", rows)

    def next_after(self, seq: int, limit: int) -> list[tuple[int, Chunk]]:
        """Up to ``limit`` waiting chunks written after ``seq``, in the order written."""
        if not self._present:
            return []
        rows = self.manifest.select("SELECT seq, id, text, metadata FROM unembedded WHERE seq > ? "
                                    "ORDER BY seq LIMIT ?", (seq, limit))
        return [(int(row[0]), Chunk(row[1], row[2], json.loads(row[3]))) for row in rows]

    def get(self, ids: Sequence[str]) -> list[Chunk]:
        """The waiting chunks among ``ids``, in the order given."""
        found: dict[str, Chunk] = {}
        for start in range(0, len(ids) if self._present else 0, _PAGE):
            page = list(ids[start:start + _PAGE])
            marks = ", ".join("?" * len(page))
            for chunk_id, text, metadata in self.manifest.select(
                    f"SELECT id, text, metadata FROM unembedded WHERE id IN ({marks})", page):
                found[chunk_id] = Chunk(chunk_id, text, json.loads(metadata))
        return [found[chunk_id] for chunk_id in ids if chunk_id in found]

    def waiting(self, seqs: Sequence[int]) -> set[int]:
        """Those of ``seqs`` still in the table (a file removed meanwhile took its rows)."""
        found: set[int] = set()
        for start in range(0, len(seqs), _PAGE):
            page = list(seqs[start:start + _PAGE])
            marks = ", ".join("?" * len(page))
            found.update(int(row[0]) for row in self.manifest.select(
                f"SELECT seq FROM unembedded WHERE seq IN ({marks})", page))
        return found

    def done(self, seqs: Sequence[int]) -> None:
        """These rows' vectors are durable in the store: they wait no more."""
        with self.manifest.transaction() as db:
            db.executemany("DELETE FROM unembedded WHERE seq = ?", [(seq,) for seq in seqs])

    def ids(self) -> list[str]:
        if not self._present:
            return []
        return [row[0] for row in self.manifest.select("SELECT id FROM unembedded")]

    def count(self) -> int:
        if not self._present:
            return 0
        return int(self.manifest.select("SELECT COUNT(*) FROM unembedded")[0][0])


def unembedded_of(manifest: object) -> Unembedded | None:
    """The unembedded table beside ``manifest``, or None for a manifest that keeps none (a
    store keeping its own index state, such as Postgres, indexes without it)."""
    return Unembedded(manifest) if isinstance(manifest, Manifest) else None


class _WithUnembedded:
    """A store's ids, count and chunks together with the waiting ones: what BM25 must hold."""

    def __init__(self, store: VectorStore, unembedded: Unembedded) -> None:
        self._store = store
        self._unembedded = unembedded

    def count(self) -> int:
        return len(self.ids())

    def ids(self) -> list[str]:
        return sorted(set(self._store.ids()) | set(self._unembedded.ids()))

    def get(self, ids: Sequence[str]) -> list[Chunk]:
        stored = {chunk.id: chunk for chunk in self._store.get(ids)}
        missing = [chunk_id for chunk_id in ids if chunk_id not in stored]
        stored.update((chunk.id, chunk) for chunk in self._unembedded.get(missing))
        return [stored[chunk_id] for chunk_id in ids if chunk_id in stored]

    def id_digest(self) -> int | None:
        return None  # the store's digest covers only its own ids: compare the id sets


def with_unembedded(store: VectorStore, unembedded: Unembedded | None) -> StoredChunks:
    """``store`` as BM25 sees it: its chunks and those waiting for their vectors."""
    if unembedded is None or not unembedded.count():
        return store
    return _WithUnembedded(store, unembedded)
