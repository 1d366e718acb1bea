"""Texts that do not live in files, by source id: ``ingest_text`` and ``delete_source``,
and their batch forms ``add_documents`` and ``delete_documents`` (the indexer's
``text_sources`` does the work; arguments are checked before the write lock is taken).
A service writing for many tenants passes ``tenant=``: the write goes through that
tenant's view of the store, manifest and BM25 index (opened on first use)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, ExitStack, nullcontext
from typing import TYPE_CHECKING

from ragloom.indexing.added_texts import checked_batch, checked_source, checked_source_ids
from ragloom.indexing.indexer import Indexer
from ragloom.locking import SnapshotLock
from ragloom.stores.base import VectorStore
from ragloom.tenancy import check_tenant, refuse_tenant_metadata
from ragloom.types import IndexReport, Metadata

if TYPE_CHECKING:
    from ragloom.engine.opening import IndexOpener, IndexParts
    from ragloom.retrieval.searcher import Searcher


class TextMethods:
    """The text-source verbs of RAGEngine."""

    # RAGEngine's, declared so mypy checks the two agree
    _indexer: Indexer
    _writing: Callable[[], AbstractContextManager[None]]
    _opener: IndexOpener
    _closing: ExitStack
    _snapshot_lock: SnapshotLock
    _wire: Callable[[IndexParts], tuple[Indexer, Searcher]]
    store: VectorStore
    tenant: str | None

    def ingest_text(self, source_id: str, text: str, metadata: Metadata | None = None,
                    language: str | None = None, *, tenant: str | None = None) -> IndexReport:
        """Chunk, embed and store a text that does not live in a file (a database row, a
        fetched page, a ticket) under a stable ``source_id``; ingesting it again with the
        same text does nothing, with changed text re-embeds only the changed chunks.
        ``language`` picks the chunker ("markdown", "python", ...; default plain text);
        ``metadata`` (scalars) goes on every chunk and may set ``source_type``;
        ``tenant`` (an engine without a tenant of its own): whose text it is."""
        added = checked_source(source_id, text, metadata, language)
        tenant = self._writer_tenant(tenant, [metadata])
        with self._writing():
            return self._indexer_of(tenant).texts.ingest([added])

    def add_documents(self, ids: Sequence[str], texts: Sequence[str],
                      metadatas: Sequence[Metadata] | None = None, *,
                      tenant: str | None = None) -> IndexReport:
        """``ingest_text`` for a batch: each text under its id as source id (chunked as
        plain text), embedded together and written in one step. The whole batch is checked
        first: a bad id, text or metadata raises ValueError naming it and writes nothing."""
        added = checked_batch(ids, texts, metadatas)
        tenant = self._writer_tenant(tenant, metadatas or [])
        with self._writing():
            return self._indexer_of(tenant).texts.ingest(added)

    def delete_source(self, source_id: str, *, tenant: str | None = None) -> int:
        """Remove a text added with ``ingest_text`` or ``add_documents``; returns how many
        chunks were removed (0 for an unknown id)."""
        return self.delete_documents([source_id], tenant=tenant)

    def delete_documents(self, ids: Sequence[str], *, tenant: str | None = None) -> int:
        """``delete_source`` for a batch, in one step; returns how many chunks were removed."""
        source_ids = checked_source_ids(ids)
        tenant = self._writer_tenant(tenant, [])
        with self._writing():
            return self._indexer_of(tenant).texts.delete(source_ids)

    def _writer_tenant(self, tenant: str | None, metadatas: Sequence[Metadata | None]) -> str | None:
        """The tenant a write is for (``tenant``, else the engine's), checked: an engine of
        one tenant writes for no other, and no metadata sets the reserved key."""
        own: str | None = self.tenant
        if tenant is not None:
            check_tenant(tenant, "tenant argument")
            if own is not None and tenant != own:
                raise ValueError(f"tenant argument {tenant!r}: this engine serves tenant {own!r} "
                                 f"only (open one without a tenant to write for many)")
        tenant = own if tenant is None else tenant
        refuse_tenant_metadata(tenant, metadatas)
        return tenant

    def _indexer_of(self, tenant: str | None) -> Indexer:
        """The engine's indexer, or one over ``tenant``'s parts (opened once, closed with
        the engine; its BM25 index made durable with the store after each write)."""
        if tenant == self.tenant or tenant is None:
            return self._indexer
        others: dict[str, Indexer] = self.__dict__.setdefault("_tenant_indexers", {})
        if tenant not in others:
            parts = self._opener.for_tenant(self.store, tenant)
            self._closing.callback(parts.closing.close)
            indexer = self._wire(parts)[0]

            def persist() -> None:  # as the engine's _persist, with the tenant's BM25
                if not parts.persistent:
                    return
                with (nullcontext() if parts.owns_state
                      else self._snapshot_lock.writing()):
                    parts.sparse.persist()
                    parts.store.persist()
            indexer.persist = indexer.writer.persist = persist
            others[tenant] = indexer
        return others[tenant]
