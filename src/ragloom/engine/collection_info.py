"""What ``ragloom collections`` shows of a collection, and what dropping one removed."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class CollectionInfo:
    """One collection of a store. ``None`` marks a figure the store does not report
    (a Chroma server tells no sizes; a collection written elsewhere has no local manifest)."""

    name: str
    store: str
    #: The embedding identity the collection was built with (``provider/model``); a
    #: collection is only ever opened with it (another model is an IndexMismatchError).
    embedding_model: str | None
    dimension: int | None
    chunks: int | None
    #: Files and added texts its manifest records.
    files: int | None
    #: Bytes on disk (store, BM25 index, manifest) or as the server reports them.
    bytes: int | None
    #: The folder, or the server (and schema), holding it.
    where: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class DroppedCollection:
    """What ``drop_collection`` removed (files, tables, a Chroma collection) and what it
    left because ragloom did not write it."""

    name: str
    store: str
    removed: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
