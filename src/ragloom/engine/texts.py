"""Texts that do not live in files, by source id: ``ingest_text`` and ``delete_source``,
and their batch forms ``add_documents`` and ``delete_documents`` (the indexer's
``text_sources`` does the work; arguments are checked before the write lock is taken)."""

from __future__ import annotations

from collections.abc import Sequence

from ragloom.indexing.added_texts import checked_batch, checked_source, checked_source_ids
from ragloom.indexing.indexer import Indexer
from ragloom.tenancy import refuse_tenant_metadata
from ragloom.types import IndexReport, Metadata


class TextMethods:
    """The text-source verbs of RAGEngine."""

    _indexer: Indexer

    def ingest_text(self, source_id: str, text: str, metadata: Metadata | None = None,
                    language: str | None = None) -> IndexReport:
        """Chunk, embed and store a text that does not live in a file (a database row, a
        fetched page, a ticket) under a stable ``source_id``; ingesting it again with the
        same text does nothing, with changed text re-embeds only the changed chunks.
        ``language`` picks the chunker ("markdown", "python", ...; default plain text);
        ``metadata`` (scalars) goes on every chunk and may set ``source_type``."""
        added = checked_source(source_id, text, metadata, language)
        refuse_tenant_metadata(self.tenant, [metadata])  # type: ignore[attr-defined]
        with self._writing():  # type: ignore[attr-defined]
            return self._indexer.texts.ingest([added])

    def add_documents(self, ids: Sequence[str], texts: Sequence[str],
                      metadatas: Sequence[Metadata] | None = None) -> IndexReport:
        """``ingest_text`` for a batch: each text under its id as source id (chunked as
        plain text), embedded together and written in one step. The whole batch is checked
        first: a bad id, text or metadata raises ValueError naming it and writes nothing."""
        added = checked_batch(ids, texts, metadatas)
        refuse_tenant_metadata(self.tenant, metadatas or [])  # type: ignore[attr-defined]
        with self._writing():  # type: ignore[attr-defined]
            return self._indexer.texts.ingest(added)

    def delete_source(self, source_id: str) -> int:
        """Remove a text added with ``ingest_text`` or ``add_documents``; returns how many
        chunks were removed (0 for an unknown id)."""
        return self.delete_documents([source_id])

    def delete_documents(self, ids: Sequence[str]) -> int:
        """``delete_source`` for a batch, in one step; returns how many chunks were removed."""
        source_ids = checked_source_ids(ids)
        with self._writing():  # type: ignore[attr-defined]
            return self._indexer.texts.delete(source_ids)
