"""The ``[rag.limits]`` table: how much one collection, each tenant's share of it, and one
conversation session may hold. A write that would go past a limit is refused whole with ``QuotaExceededError``
before anything of it is written (``indexing.quotas``); unset keys limit nothing."""

from __future__ import annotations

from pydantic import Field

from ragloom.config.rules import StrictModel


class LimitsConfig(StrictModel):
    """The ``[rag.limits]`` table; every key is optional (None: no limit)."""

    #: Chunks stored in the collection.
    max_chunks: int | None = Field(None, ge=1, le=1_000_000_000)
    #: Files and added texts (``ingest_text`` / ``add_documents`` sources) in the collection.
    max_files: int | None = Field(None, ge=1, le=1_000_000_000)
    #: Bytes of source text indexed in the collection (file sizes, UTF-8 sizes of texts).
    max_bytes: int | None = Field(None, ge=1, le=100_000_000_000)
    #: The same figures for each tenant's share of the collection (``ragloom.tenancy``):
    #: checked on every write for a tenant, against that tenant's data only.
    max_chunks_per_tenant: int | None = Field(None, ge=1, le=1_000_000_000)
    max_files_per_tenant: int | None = Field(None, ge=1, le=1_000_000_000)
    max_bytes_per_tenant: int | None = Field(None, ge=1, le=100_000_000_000)
    #: Turns remembered per conversation session (``apps.memory.MemoryStore``).
    max_memory_turns: int | None = Field(None, ge=1, le=1_000_000_000)

    def active(self) -> dict[str, int]:
        """The limits that are set, by key."""
        return {key: value for key, value in self.model_dump().items() if value is not None}
