"""The data that crosses ragloom's public surface: chunks, search results, index reports."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

MetadataValue = str | int | float | bool
Metadata = dict[str, MetadataValue]


@dataclass(frozen=True)
class Chunk:
    """A piece of a file or document as it is embedded and stored."""

    id: str
    text: str
    metadata: Metadata = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class RetrieverHit:
    """Where one retriever ranked a result: its 1-based rank and raw score."""

    rank: int
    score: float


@dataclass
class SearchResult:
    """One retrieved chunk: its text and metadata, and how well it matches the query.

    ``score`` is always the cosine similarity of the chunk to the query (what ``min_score``
    compares; 1 = same direction, around 0 = unrelated) and ``distance`` = 1 - score.
    ``rank_score`` is the value results are ordered by: the cosine in dense search, the
    fused value (e.g. Reciprocal Rank Fusion) in hybrid search. ``retrievers`` says which
    retrievers found it (``dense``, ``sparse``), at which rank and with which raw score.
    """

    id: str
    text: str
    metadata: Metadata
    score: float
    distance: float
    retrievers: dict[str, RetrieverHit] = field(default_factory=dict)
    rank_score: float | None = None
    #: Set by contextual compression (``search(compress=True)``): the whole chunk text, while
    #: ``text`` holds only the kept lines; and the kept file lines as inclusive ranges.
    full_text: str | None = None
    kept_lines: list[tuple[int, int]] | None = None

    def __post_init__(self) -> None:
        if self.rank_score is None:
            self.rank_score = self.score

    @property
    def path(self) -> str | None:
        value = self.metadata.get("path")
        return None if value is None else str(value)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class SkippedFile:
    """A file discovery or indexing passed over, and why."""

    path: str
    reason: str


@dataclass
class IndexReport:
    """What one indexing run did."""

    files_indexed: int = 0
    files_unchanged: int = 0
    files_skipped: int = 0
    files_removed: int = 0
    chunks_added: int = 0
    chunks_removed: int = 0
    chunks_embedded: int = 0
    seconds: float = 0.0
    skipped: list[SkippedFile] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def merge(self, other: IndexReport) -> None:
        """Add ``other``'s counts, skips and warnings to this report (one report per run of
        several folders)."""
        for name, value in vars(other).items():
            current = getattr(self, name)
            setattr(self, name, current + value)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class IndexStatus:
    """A snapshot of an engine's index, for ``ragloom status`` (the CLI, its ``--json``
    and MCP's ``rag_status`` all show ``to_dict()``)."""

    enabled: bool
    files: int = 0
    chunks: int = 0
    store: str = ""
    embedding_provider: str = ""
    embedding_model: str = ""
    dimension: int = 0
    #: The local folder of the index ("" for a store that keeps everything on a server).
    index_dir: str = ""
    index_bytes: int = 0
    #: Bytes per part: store, bm25, manifest, embedding_cache, other (on disk, or as the
    #: server reports them).
    bytes_by_part: dict[str, int] = field(default_factory=dict)
    #: Seconds since the epoch; ``to_dict`` gives it as ISO 8601 UTC, as the CLI prints it.
    last_indexed: float | None = None
    #: Files the next run would (re)index or remove; None when not counted.
    files_pending: int | None = 0
    #: Files the next run will pass over, by reason ("binary file": 3); None when not counted.
    files_skipped: dict[str, int] | None = field(default_factory=dict)
    #: The server of a store that lives in one (credentials redacted), else "".
    server: str = ""
    #: The table or collection holding the chunks on that server, else "".
    collection: str = ""
    #: Parts whose size the store's server does not report (not counted in index_bytes).
    sizes_unknown: list[str] = field(default_factory=list)
    auto_sync: dict[str, Any] | None = None
    #: Files the last indexing run skipped, by reason (``indexing.skip_reasons``).
    skipped: dict[str, int] = field(default_factory=dict)
    #: Usage against each ``[rag.limits]`` collection limit that is set:
    #: ``{"max_chunks": {"used": 120, "limit": 1000}}`` (empty: no limit set).
    limits: dict[str, dict[str, int]] = field(default_factory=dict)
    #: Chunks (counted in ``chunks``) BM25 finds but dense search not yet: their vectors are
    #: being filled in (progressive indexing) or left for the next run by a stopped one.
    chunks_unembedded: int = 0

    @property
    def bytes_per_chunk(self) -> dict[str, float]:
        """``bytes_by_part`` divided by the number of chunks, with a ``total``."""
        parts = {**self.bytes_by_part, "total": self.index_bytes}
        return {part: size / self.chunks if self.chunks else 0.0 for part, size in parts.items()}

    @property
    def last_indexed_iso(self) -> str | None:
        """``last_indexed`` as ISO 8601 UTC to the second, or None (never indexed)."""
        if self.last_indexed is None:
            return None
        from datetime import datetime, timezone

        return datetime.fromtimestamp(self.last_indexed, tz=timezone.utc).isoformat(timespec="seconds")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self) | {"last_indexed": self.last_indexed_iso,
                               "bytes_per_chunk": self.bytes_per_chunk}
