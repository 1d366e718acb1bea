"""The write path: files -> read -> chunk -> BM25 -> embed (cache first) -> store + manifest.

The Indexer schedules the work: files are read and chunked ahead (``read_ahead``) into
windows; each goes to BM25 at once and ``backfill`` embeds it behind (progressive), else
windows are embedded while the one before is written (``embed_ahead``); the ``writer``
journals each step. Texts added through the API are embedded, then written (``text_sources``)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from contextlib import closing
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from ragloom.chunking.registry import language_for_path
from ragloom.digests import content_hash
from ragloom.embeddings.cache import EmbeddedTexts
from ragloom.indexing.backfill import Backfill, Rows
from ragloom.indexing.content_noise import Recheck, content_noise
from ragloom.indexing.discovery import Rules, relative_posix
from ragloom.indexing.embed_ahead import EmbedAhead, Embedding
from ragloom.indexing.indexer_setup import IndexerOptions, IndexerParts
from ragloom.indexing.manifest import RECHUNK, FileRecord
from ragloom.indexing.path_names import PathNames
from ragloom.indexing.pending import PendingWork, pending_work, remember_skipped, vanished_files
from ragloom.indexing.progress import IndexingStopped as IndexingStopped  # its old home
from ragloom.indexing.progress import ModelClock, ProgressCallback, ProgressTracker, expected_bytes
from ragloom.indexing.quotas import Quota, plan_files
from ragloom.indexing.read_ahead import read_ahead
from ragloom.indexing.reading import FileContent, SkipFile, read_file, redacted
from ragloom.indexing.skip_reasons import save_skipped
from ragloom.indexing.source_types import SourceTypes, inline_test_symbols
from ragloom.indexing.text_sources import TextSources
from ragloom.indexing.writer import JournaledWriter, PendingFile, Window, file_record
from ragloom.readers.base import SpanLookup
from ragloom.security import redact_secrets
from ragloom.types import Chunk, IndexReport, Metadata, SkippedFile

logger = logging.getLogger("ragloom")

#: Chunks gathered before one embedding call and one store write: windows start at
#: FIRST_WINDOW_CHUNKS (the model starts early) and double up to EMBED_WINDOW_CHUNKS.
EMBED_WINDOW_CHUNKS = 4096
FIRST_WINDOW_CHUNKS = 64


@dataclass
class _ToRead:
    path: Path
    relative: str
    previous: FileRecord | None
    size: int  # on disk, when listed
    mtime_ns: int


@dataclass
class _Prepared:
    """A file read (and chunked when it changed) on a worker thread."""
    content: FileContent
    chunks: list[Chunk] | None  # None: same content as its previous version
    warnings: list[str]


class Indexer:
    """Keeps a store and its manifest in step with files on disk."""

    def __init__(self, rules: Rules, parts: IndexerParts, options: IndexerOptions) -> None:
        #: Which files are indexed (the walk's rules, ``Rules.from_config``).
        self.rules = rules
        self.base_dir = rules.base_dir
        self.readers, self.chunker, self.embedder = parts.readers, parts.chunker, parts.embedder
        self.store, self.sparse, self.manifest = parts.store, parts.sparse, parts.manifest
        self.commit = parts.commit  # each field: see ``IndexerParts`` and ``IndexerOptions``
        self.persist = parts.persist or parts.store.persist
        self.max_file_bytes, self.redact = options.max_file_bytes, options.redact
        self.text_of, self.progressive = options.text_of, options.progressive
        self.source_types = options.source_types or SourceTypes()
        self.quota = options.quota or Quota.unlimited(parts.manifest)
        self.writer = JournaledWriter(self.store, self.sparse, self.manifest, self.commit, self.persist)
        #: The names files are indexed under (never an absolute machine path).
        self.names = PathNames(self.base_dir, self.manifest)
        #: Texts added through the API (``ingest_text``, ``add_documents``) by source id.
        self.texts = TextSources(self.chunker, lambda: parts.embedder.provider.model_name, self.manifest,
                                 self.writer, self._flush, self.redact, self.quota)

    def index_directory(self, root: Path, include: Sequence[str] | None = None,
                        exclude: Sequence[str] | None = None,
                        progress: ProgressCallback | None = None,
                        stop: threading.Event | None = None) -> IndexReport:
        """Index every eligible file under ``root`` and drop files deleted from it; setting
        ``stop`` (from another thread) ends the run at the next safe point (IndexingStopped)."""
        started = time.perf_counter()
        if not root.is_dir():
            raise NotADirectoryError(f"not a directory: {root}")
        report = IndexReport()
        self.names.register(root)
        found = self.rules.discover(root, include, exclude or ())
        report.skipped.extend(found.skipped)
        report.files_skipped += len(found.skipped)
        records = self.manifest.records()  # indexed before a rule skipped them: removed
        plan_files(self.quota, found.files, self.names,  # [rag.limits]: before anything is written
                   lambda *item: self._prepare_or_skip(_ToRead(*item)), root, [s.path for s in found.skipped])
        self.writer.remove_files([s.path for s in found.skipped if s.path in records], report)
        try:  # unchanged files judged again when the content noise rules changed
            self._index_files(found.files, report, progress, stop,
                              Recheck.of(self.manifest, self.names.name(root), self.rules))
        except IndexingStopped as stopped:
            report.seconds = time.perf_counter() - started
            pending = pending_work(found, root, self.names, self.manifest).files
            waiting = self.writer.unembedded.count() if self.writer.unembedded else 0
            raise IndexingStopped(str(stopped), report, pending, waiting) from None
        self.writer.remove_files(vanished_files(root, self.names, self.manifest.versions()), report)
        if self.rules.index_dir is not None and self.rules.index_dir.is_dir():  # for ``ragloom status``
            save_skipped(self.rules.index_dir, self.names.name(root), report.skipped)
        report.seconds = time.perf_counter() - started
        return report

    def pending(self, root: Path) -> PendingWork:
        """Files under ``root`` that the next indexing run would (re)index or remove, and
        those it will skip, by reason."""
        return pending_work(self.rules.discover(root), root, self.names, self.manifest)

    def pending_under(self, roots: Sequence[Path]) -> PendingWork:
        """``pending`` summed over the indexed folders that exist."""
        work = PendingWork()
        for root in roots:
            work = work.add(self.pending(root)) if root.is_dir() else work
        return work

    def index_file(self, path: Path) -> IndexReport:
        """Index one file (re-indexing it if it changed)."""
        started = time.perf_counter()
        if not path.is_file():
            raise FileNotFoundError(f"not a file: {path}")
        report = IndexReport()
        rules = self.rules
        reason = rules.excluded(path) if rules.inside(path) else None
        if reason is not None:  # the walk's rules hold for a file named on its own too
            shown = redact_secrets(relative_posix(path, self.base_dir)).text  # a name may hold a key
            report.skipped.append(SkippedFile(shown, reason))
            report.files_skipped += 1
            report.seconds = time.perf_counter() - started
            return report
        self.names.register(path.parent)  # a file outside base_dir is named under its folder
        plan_files(self.quota, [path], self.names, lambda *item: self._prepare_or_skip(_ToRead(*item)))
        self._index_files([path], report, None, None, Recheck.never())
        report.seconds = time.perf_counter() - started
        return report

    def remove_path(self, relative: str) -> int:
        """Delete a file's chunks from store, BM25 index and manifest; returns how many."""
        return self.writer.remove(relative)

    def _index_files(self, files: Sequence[Path], report: IndexReport,
                     progress: ProgressCallback | None, stop: threading.Event | None,
                     recheck: Recheck) -> None:
        records = self.manifest.records()
        unchanged_versions: list[FileRecord] = []
        to_read: list[_ToRead] = []
        skipped: dict[str, tuple[int, int, str]] = {}  # remembered: status counts them apart
        for path in files:
            relative = self.names.name(path)
            previous = records.get(relative)
            try:
                stat = path.stat()
            except OSError as exc:
                self._skip(report, relative, f"cannot stat: {exc.strerror or exc}", previous)
                continue
            if previous and previous.unchanged(stat.st_size, stat.st_mtime_ns):
                why = recheck.noise(relative, stat.st_size, self.rules,
                                    partial(read_file, path, relative, self.max_file_bytes, self.readers))
                if why is not None:  # noise by content rules it was not judged by: dropped
                    self._skip(report, relative, why, previous)
                    skipped[relative] = (stat.st_size, stat.st_mtime_ns, why)
                    continue
                report.files_unchanged += 1
            else:
                to_read.append(_ToRead(path, relative, previous, stat.st_size, stat.st_mtime_ns))
        weigh = expected_bytes if progress else lambda path, relative, size: size  # shown only
        weights = {item.relative: weigh(item.path, item.relative, item.size) for item in to_read}
        tracker = ProgressTracker(progress, len(files), len(to_read), len(files) - len(to_read),
                                  sum(weights.values()), self.chunker.sizing.window_characters)
        window = Window()
        window_limit = min(FIRST_WINDOW_CHUNKS, EMBED_WINDOW_CHUNKS)
        sparse_first = self.progressive and self.writer.unembedded is not None  # BM25 first

        def embed(chunks: list[Chunk], told: Callable[[int], None]) -> EmbeddedTexts:
            return self._embed(chunks, told, stop, tracker.model)

        # closing(): a stop or an error cancels the files queued ahead at once, not at exit
        with EmbedAhead[Window](lambda window, told: embed(window.chunks(), told)) as line, \
                EmbedAhead[Rows](lambda rows, told: embed([c for _, c in rows], told)) as behind, \
                closing(read_ahead(to_read, self._prepare_or_skip, lambda item: item.size)) as prepared:
            backfill = None if self.writer.unembedded is None else Backfill(  # vectors behind
                self.writer, behind, report, tracker, lambda path, why: self._skip(
                    report, path, why, self.manifest.get(path)), FIRST_WINDOW_CHUNKS, EMBED_WINDOW_CHUNKS)
            embedding: Embedding[Window] | None = None  # handed to the line, not written yet
            for item, outcome in zip(to_read, prepared):
                _stop_if_asked(stop)
                chunks = 0
                if isinstance(outcome, SkipFile):
                    self._skip(report, item.relative, str(outcome), item.previous)
                    skipped[item.relative] = (item.size, item.mtime_ns, str(outcome))
                else:
                    report.warnings.extend(outcome.warnings)
                    if outcome.chunks is None:  # same content as the previous version
                        assert item.previous is not None
                        report.files_unchanged += 1
                        unchanged_versions.append(file_record(item.relative, outcome.content,
                                                          item.previous.chunk_ids))
                    else:
                        chunks = len(outcome.chunks)
                        window.add(PendingFile(item.relative, outcome.content, outcome.chunks,
                                                item.previous))
                line.drain(tracker.batch_embedded)  # batches the model finished meanwhile
                behind.drain(tracker.batch_embedded)
                tracker.file_read(chunks, weights[item.relative])
                if window.chunk_count >= window_limit:
                    embedding = self._hand_over(line, window, embedding, report, tracker, backfill,
                                                sparse_first)
                    window = Window()
                    window_limit = min(window_limit * 2, EMBED_WINDOW_CHUNKS)
            embedding = self._hand_over(line, window, embedding, report, tracker, backfill, sparse_first)
            if embedding is not None:
                self._write_embedded(line, embedding, report, tracker)
            if backfill is not None:
                backfill.finish()
        if unchanged_versions:
            self.manifest.write(unchanged_versions)
        remember_skipped(self.manifest, self.names, [item.relative for item in to_read] + list(skipped),
                         skipped)
        recheck.done(self.manifest)

    def _prepare_or_skip(self, item: _ToRead) -> _Prepared | SkipFile:
        """The file read and chunked, or why it is skipped: a reader or chunker failing on
        one file (a parser bug, a CPython bug under threads) must not abort the run."""
        try:
            return self.quota.take(item.relative) or self._prepare(item)  # read by the quota check?
        except SkipFile as skip:
            return skip
        except Exception as exc:
            logger.warning("%s: chunking failed (%s: %s); skipped", item.relative,
                           type(exc).__name__, exc)
            return SkipFile(f"chunking failed: {type(exc).__name__}: {exc}")

    def read_whole(self, relative: str) -> tuple[str, Metadata]:
        """A file's whole text as indexing reads it (its reader, secrets redacted) and the
        metadata of a whole-file result; SkipFile when it cannot be read now."""
        path = self.names.path(relative)
        content = read_file(path, relative, self.max_file_bytes, self.readers)
        text = redacted(content.text, relative, None, self.redact)
        return text, {"path": relative,
                      "source_type": self.source_types.of(relative, language_for_path(relative))}

    def _prepare(self, item: _ToRead) -> _Prepared:
        content = read_file(item.path, item.relative, self.max_file_bytes, self.readers)
        why = content_noise(content, item.relative, self.rules)
        if why is not None:
            raise SkipFile(why)
        warnings = [f"{item.relative}: {content.warning}"] if content.warning else []
        previous = item.previous
        if previous and previous.size != RECHUNK and previous.sha256 == content.sha256:
            return _Prepared(content, None, warnings)
        return _Prepared(content, self._chunk(item.relative, content, warnings), warnings)

    def _chunk(self, relative: str, content: FileContent, warnings: list[str]) -> list[Chunk]:
        segments = [span for span in content.spans if span.language]
        chunks = self.chunker.chunk(redacted(content.text, relative, warnings, self.redact), relative,
                                    content.language, segments)
        model = self.embedder.provider.model_name
        spans = SpanLookup(content.spans)
        tests = inline_test_symbols((c.metadata.get("symbol"), str(c.metadata["language"]), c.text)
                                    for c in chunks)
        for chunk in chunks:
            if content.spans:
                chunk.metadata.update(spans.metadata_for(int(chunk.metadata["start_line"]),
                                                         int(chunk.metadata["end_line"])))
            language = str(chunk.metadata["language"])
            source_type = self.source_types.of(relative, language)
            if source_type == "code" and chunk.metadata.get("symbol") in tests:
                source_type = "test"
            chunk.metadata.update(source="file", file_hash=content.sha256[:16], source_type=source_type,
                                  content_hash=content_hash(chunk.text)[:16],
                                  embedding_model=model)
        return chunks

    def _hand_over(self, line: EmbedAhead[Window], window: Window, previous: Embedding[Window] | None,
                   report: IndexReport, tracker: ProgressTracker, backfill: Backfill | None,
                   sparse_first: bool) -> Embedding[Window] | None:
        """Queue ``window`` for embedding, then write ``previous`` (embedded meanwhile) while
        the model works on it; returns the window now in flight. Progressively
        (``sparse_first``): write ``window`` to BM25 now and let ``backfill`` embed it behind."""
        if sparse_first:
            assert backfill is not None
            if window.files:
                self.writer.write_sparse(window, report)
            backfill.pump()
            return None
        current = line.submit(window) if window.files else None
        if previous is not None:
            self._write_embedded(line, previous, report, tracker)
        return current

    def _write_embedded(self, line: EmbedAhead[Window], embedding: Embedding[Window],
                        report: IndexReport, tracker: ProgressTracker) -> None:
        self._write(embedding.job, line.result(embedding, tracker.batch_embedded), report, tracker)

    def _embed(self, chunks: list[Chunk], on_batch: Callable[[int], None],
               stop: threading.Event | None, model: ModelClock) -> EmbeddedTexts:
        """Vectors of chunks as the embedder reads them; a ``stop`` request is honoured
        between batches (embedded batches are cached; nothing is journaled yet). ``model``
        times the batches (the progress line's rate)."""
        def batch_done(count: int) -> None:
            model.batch(count)
            on_batch(count)
            _stop_if_asked(stop)

        _stop_if_asked(stop)
        model.start()
        return self.embedder.embed([self.text_of(c.text, c.metadata) for c in chunks], "document",
                                   on_embedded=batch_done)

    def _flush(self, window: Window, report: IndexReport) -> None:
        """Embed and write a window, here and now."""
        if window.files:
            tracker = ProgressTracker(None, len(window.files), len(window.files), 0)
            embedded = self._embed(window.chunks(), tracker.batch_embedded, None, tracker.model)
            self._write(window, embedded, report, tracker)

    def _write(self, window: Window, embedded: EmbeddedTexts, report: IndexReport,
               tracker: ProgressTracker) -> None:
        """Write a window; a file the store cannot hold is skipped with its reason."""
        for pending, reason in self.writer.write_or_refuse(window, embedded, report, tracker):
            logger.warning("%s: %s; skipped", pending.relative, reason)
            self._skip(report, pending.relative, reason, pending.previous)

    def _skip(self, report: IndexReport, relative: str, reason: str,
              previous: FileRecord | None) -> None:
        report.skipped.append(SkippedFile(relative, reason))
        report.files_skipped += 1
        self.writer.remove_files([relative] if previous is not None else [], report)


def _stop_if_asked(stop: threading.Event | None) -> None:
    if stop is not None and stop.is_set():
        raise IndexingStopped("indexing stopped on request")
