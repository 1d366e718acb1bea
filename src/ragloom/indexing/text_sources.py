"""Texts that live outside files (a database row, a fetched page, a ticket), each kept
under a caller's source id: ``ingest_text`` adds one, ``add_documents`` a batch, with the
same rules. A text is redacted and chunked as files are; its version (text, metadata,
language) is recorded in the manifest, so the same text again is nothing to do and a
changed one re-embeds only the chunks whose text is new (the embedding cache has the
rest). A batch is embedded together and written as one journaled window."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Sequence

from ragloom.chunking.registry import FileChunker
from ragloom.digests import content_hash
from ragloom.indexing.added_texts import AddedText
from ragloom.indexing.manifest import RECHUNK, ManifestStore, source_key
from ragloom.indexing.quotas import Change, Quota
from ragloom.indexing.reading import FileContent, redacted
from ragloom.indexing.writer import JournaledWriter, PendingFile, Window
from ragloom.types import Chunk, IndexReport

#: Embeds and writes a window of texts, counting into the report.
Flush = Callable[[Window, IndexReport], None]


class TextSources:
    """Adds and deletes texts by source id, through the indexer's journaled writer."""

    def __init__(self, chunker: FileChunker, model_name: Callable[[], str], manifest: ManifestStore,
                 writer: JournaledWriter, flush: Flush, redact: bool = True,
                 quota: Quota | None = None) -> None:
        self.chunker = chunker
        self.model_name = model_name
        self.manifest = manifest
        self.writer = writer
        self.flush = flush
        self.redact = redact
        self.quota = quota  # [rag.limits]: checked before the window is written

    def ingest(self, texts: Sequence[AddedText]) -> IndexReport:
        """Add or replace each text (checked beforehand: ``added_texts``); unchanged ones
        count as ``files_unchanged``, the others are embedded and written together."""
        started = time.perf_counter()
        report = IndexReport()
        window = Window()
        for item in texts:
            key = source_key(item.source_id)
            version = _version(item)
            previous = self.manifest.get(key)
            if previous and previous.size != RECHUNK and previous.sha256 == version:
                report.files_unchanged += 1
                continue
            content = FileContent(item.text, len(item.text.encode("utf-8", "surrogatepass")), 0, version)
            window.add(PendingFile(key, content, self._chunks(item, key, content, report.warnings),
                                   previous))
        if self.quota is not None:
            self.quota.check(Change(p.relative, p.content.size, len(p.chunks)) for p in window.files)
        self.flush(window, report)
        report.seconds = time.perf_counter() - started
        return report

    def delete(self, source_ids: Sequence[str]) -> int:
        """Remove the texts of these source ids (unknown ids are no-ops) in one journaled
        step; returns how many chunks went."""
        return self.writer.remove_many([source_key(source_id) for source_id in source_ids])

    def _chunks(self, item: AddedText, key: str, content: FileContent,
                warnings: list[str]) -> list[Chunk]:
        text = redacted(item.text, item.source_id, warnings, self.redact)
        chunks = self.chunker.chunk(text, key, item.language or "text")
        model = self.model_name()
        for chunk in chunks:
            del chunk.metadata["path"]
            chunk.metadata.update({"source_type": "text", **item.metadata}, source="text",
                                  source_id=item.source_id, file_hash=content.sha256[:16],
                                  content_hash=content_hash(chunk.text)[:16],
                                  embedding_model=model)
        return chunks


def _version(item: AddedText) -> str:
    """What identifies a text's version: its text, metadata and language."""
    return hashlib.sha256(json.dumps([item.text, item.metadata, item.language], sort_keys=True,
                                     ensure_ascii=False).encode("utf-8", "surrogatepass")).hexdigest()

