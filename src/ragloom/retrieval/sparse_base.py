"""What the searcher, the indexer and the consistency checks ask of a keyword index.

``SparseIndex`` (BM25 in a folder of segments beside the store) is one; a store that keeps
its own text index (a database, for example) supplies another, and the engine hands that
to the searcher and the indexer instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ragloom.filters import Node
from ragloom.types import Chunk, Metadata, MetadataValue


class StoredChunks(Protocol):
    """What ``sync_with`` reads of the store it keeps in step with: a ``VectorStore``, or
    the store together with the chunks still waiting for their vectors
    (``indexing.unembedded.with_unembedded``)."""

    def count(self) -> int: ...

    def ids(self) -> list[str]: ...

    def get(self, ids: Sequence[str]) -> list[Chunk]: ...

    def id_digest(self) -> int | None: ...


class SparseBackend(Protocol):
    """A keyword index over the stored chunks, kept in step with the vector store."""

    def __len__(self) -> int: ...

    def ids(self) -> list[str]:
        """Every chunk id the index holds."""
        ...

    def add(self, ids: Sequence[str], texts: Sequence[str], metadatas: Sequence[Metadata]) -> None:
        """Index chunks; an id already present is replaced."""
        ...

    def remove(self, ids: Sequence[str]) -> None: ...

    def clear(self) -> None: ...

    def search(self, query: str, k: int, conditions: list[Node] | None = None,
               feedback_docs: int = 0, feedback_terms: int = 10,
               feedback_weight: float = 0.5) -> list[tuple[str, float]]:
        """The ``k`` best (id, score) pairs for ``query``, filters applied before ranking."""
        ...

    def defining(self, query: str, conditions: list[Node] | None = None) -> list[str]:
        """Ids of the chunks defining a name ``query`` uses (see ``retrieval.symbols``)."""
        ...

    def chunks_with(self, key: str, values: Sequence[MetadataValue]) -> list[tuple[str, Metadata]]:
        """(id, metadata) of every chunk whose metadata ``key`` equals one of ``values``
        (one lookup for them all: a search asks for every result's copies at once)."""
        ...

    def distinct_values(self, key: str) -> list[MetadataValue]:
        """Sorted distinct values of metadata ``key`` over every chunk."""
        ...

    def sync_with(self, store: StoredChunks) -> bool:
        """Rebuild from the store when the two hold different ids; True when it rebuilt."""
        ...

    def persist(self) -> None:
        """Make every change durable (a crash after this loses none of them)."""
        ...

    def verify_files(self) -> list[str]:
        """One message per damaged file (an index that keeps no files has none)."""
        ...

    def disk_bytes(self) -> int:
        """Bytes the index takes on disk (0 when it lives elsewhere)."""
        ...
