"""The journaled writer: the one place the store, the BM25 index and the manifest change
together. Each write is journaled first, so a crash at any point leaves a state that
``consistency.recover_interrupted`` finishes or rolls back."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field

from ragloom.embeddings.cache import EmbeddedTexts
from ragloom.faults import crash_point
from ragloom.indexing.manifest import FileRecord, ManifestStore
from ragloom.indexing.progress import ProgressTracker
from ragloom.indexing.reading import FileContent
from ragloom.indexing.unembedded import unembedded_of
from ragloom.retrieval.sparse_base import SparseBackend
from ragloom.stores.base import DataRejectedError, VectorStore
from ragloom.types import Chunk, IndexReport


@dataclass
class PendingFile:
    """A file (or ingested text) chunked and waiting to be embedded and written."""

    relative: str
    content: FileContent
    chunks: list[Chunk]
    previous: FileRecord | None


@dataclass
class Window:
    """Files embedded together and written as one journaled step."""

    files: list[PendingFile] = field(default_factory=list)
    chunk_count: int = 0

    def add(self, pending: PendingFile) -> None:
        self.files.append(pending)
        self.chunk_count += len(pending.chunks)

    def chunks(self) -> list[Chunk]:
        return [chunk for pending in self.files for chunk in pending.chunks]


class JournaledWriter:
    """Writes embedded windows and removals to store, BM25 index and manifest."""

    def __init__(self, store: VectorStore, sparse: SparseBackend, manifest: ManifestStore,
                 commit: Callable[[], AbstractContextManager[object]],
                 persist: Callable[[], None]) -> None:
        self.store = store
        self.sparse = sparse
        self.manifest = manifest
        self.commit = commit  # held while the store and BM25 change, so readers see whole files
        self.persist = persist  # makes store and BM25 durable together
        #: Chunks in BM25 waiting for their vectors (None: this manifest keeps no such table).
        self.unembedded = unembedded_of(manifest)

    def write(self, window: Window, embedded: EmbeddedTexts, report: IndexReport,
              tracker: ProgressTracker) -> None:
        """Journal an embedded window, write store and BM25 index (readers wait only for
        this part), make the store durable, and record the files."""
        chunks = window.chunks()
        tracker.window_done(len(chunks), embedded.computed)
        report.chunks_embedded += embedded.computed
        crash_point("embedded")
        stale, _ = self._journal(window)
        if self.unembedded is not None:  # rows of an earlier version left by a stopped run
            self.unembedded.replace({pending.relative: () for pending in window.files})
        with self.commit():
            if chunks:
                columns = ([c.id for c in chunks], [c.text for c in chunks], [c.metadata for c in chunks])
                self.store.upsert(columns[0], embedded.vectors, columns[1], columns[2])
                self.sparse.add(*columns)
            if stale:
                self.store.delete(stale)
                self.sparse.remove(stale)
        self._record(window, report, len(chunks), len(stale))

    def _journal(self, window: Window) -> tuple[list[str], list[str]]:
        """Journal that the window's files (their old and new chunk ids) are about to
        change; returns (the old ids the new versions no longer have, every old id)."""
        stale: list[str] = []
        earlier: list[str] = []
        touched: dict[str, list[str]] = {}
        for pending in window.files:
            current = [chunk.id for chunk in pending.chunks]
            old = list(pending.previous.chunk_ids) if pending.previous is not None else []
            stale.extend(cid for cid in old if cid not in set(current))
            earlier.extend(old)
            touched[pending.relative] = old + current
        self.manifest.begin(touched)
        crash_point("journaled")
        return stale, earlier

    def _record(self, window: Window, report: IndexReport, chunks: int, stale: int) -> None:
        """Make store and BM25 durable, then record the window's files (ending their
        journal entries) and count them."""
        crash_point("store-written")
        self.persist()
        crash_point("store-persisted")
        self.manifest.write(file_record(p.relative, p.content, tuple(c.id for c in p.chunks))
                            for p in window.files)
        crash_point("manifest-written")
        report.files_indexed += len(window.files)
        report.chunks_added += chunks
        report.chunks_removed += stale

    def write_sparse(self, window: Window, report: IndexReport) -> None:
        """Progressive indexing, first step: journal the window's files, put their chunks in
        BM25 and the unembedded table and take their earlier versions out of the store
        (vectors come later: ``write_vectors``), then record the files. A file version is
        searchable whole from here on: by BM25 now, by its vectors once they are stored."""
        assert self.unembedded is not None
        chunks = window.chunks()
        stale, earlier = self._journal(window)
        self.unembedded.replace({pending.relative: pending.chunks for pending in window.files})
        with self.commit():
            if earlier:
                self.store.delete(earlier)
            if chunks:
                self.sparse.add([c.id for c in chunks], [c.text for c in chunks],
                                [c.metadata for c in chunks])
            if stale:
                self.sparse.remove(stale)
        self._record(window, report, len(chunks), len(stale))

    def write_vectors(self, rows: Sequence[tuple[int, Chunk]], embedded: EmbeddedTexts,
                      report: IndexReport, tracker: ProgressTracker) -> None:
        """Progressive indexing, second step: store the vectors of chunks BM25 already holds,
        make them durable, then take the chunks off the unembedded table. A crash between
        the two leaves rows whose vectors are stored: the next run stores them again, from
        the embedding cache (nothing is embedded twice)."""
        assert self.unembedded is not None
        tracker.window_done(len(rows), embedded.computed)
        report.chunks_embedded += embedded.computed
        crash_point("embedded")
        waiting = self.unembedded.waiting([seq for seq, _ in rows])
        kept = [i for i, (seq, _) in enumerate(rows) if seq in waiting]  # not a file removed meanwhile
        chunks = [rows[i][1] for i in kept]
        if not chunks:
            return
        with self.commit():
            self.store.upsert([c.id for c in chunks], embedded.vectors[kept], [c.text for c in chunks],
                              [c.metadata for c in chunks])
        crash_point("store-written")
        self.persist()
        crash_point("store-persisted")
        self.unembedded.done([rows[i][0] for i in kept])
        crash_point("manifest-written")

    def write_or_refuse(self, window: Window, embedded: EmbeddedTexts, report: IndexReport,
                        tracker: ProgressTracker) -> list[tuple[PendingFile, str]]:
        """``write``; when the store refuses the window's data (DataRejectedError: a value
        it cannot hold), its files are written one by one instead. Returns the files the
        store refused, each with its reason (nothing of theirs was written)."""
        try:
            self.write(window, embedded, report, tracker)
            return []
        except DataRejectedError as exc:
            if len(window.files) == 1:
                return [(window.files[0], f"the {self.store.name} store cannot hold it: {exc}")]
        refused: list[tuple[PendingFile, str]] = []
        start = 0
        for pending in window.files:
            single = Window()
            single.add(pending)
            stop = start + len(pending.chunks)
            refused += self.write_or_refuse(single, EmbeddedTexts(embedded.vectors[start:stop], 0),
                                            report, tracker)
            start = stop
        return refused

    def remove(self, relative: str) -> int:
        """Delete a file's chunks from store, BM25 index and manifest; returns how many."""
        return self.remove_many([relative])

    def remove_many(self, relatives: Sequence[str]) -> int:
        """Delete the chunks of these files (or text sources) in one journaled step;
        returns how many chunks went."""
        known = {relative: (record.chunk_ids if (record := self.manifest.get(relative)) else ())
                 for relative in relatives}
        self.manifest.begin(known)
        crash_point("removal-journaled")
        removed = [chunk_id for chunk_ids in known.values() for chunk_id in chunk_ids]
        with self.commit():
            self.store.delete(removed)
            self.sparse.remove(removed)
        self.persist()
        crash_point("removal-persisted")
        self.manifest.write(removed=list(known))
        return len(removed)

    def remove_files(self, relatives: Iterable[str], report: IndexReport) -> None:
        """Remove these indexed files, counting them in ``report``."""
        for relative in relatives:
            report.chunks_removed += self.remove(relative)
            report.files_removed += 1


def file_record(relative: str, content: FileContent, chunk_ids: Iterable[str]) -> FileRecord:
    """The manifest's record of a file version and the chunks it was split into."""
    return FileRecord(relative, content.size, content.mtime_ns, content.sha256,
                      tuple(chunk_ids), time.time())
