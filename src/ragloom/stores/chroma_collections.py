"""The ragloom collections of a Chroma database (embedded or a server): those whose
metadata carries ragloom's marker (the embedding model key), with their model and count.
Collections of other programs are never listed, counted or dropped."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ragloom.stores.chroma import DIMENSION_KEY, MODEL_KEY


@dataclass(frozen=True)
class ChromaCollection:
    """One ragloom collection in a Chroma database."""

    name: str
    model: str | None
    dimension: int | None
    chunks: int


def own_collections(client: Any) -> list[ChromaCollection]:
    """Every collection ragloom built in the database ``client`` reaches, by name."""
    found = []
    for collection in client.list_collections():
        metadata = collection.metadata or {}
        if MODEL_KEY in metadata:
            dimension = metadata.get(DIMENSION_KEY)
            found.append(ChromaCollection(collection.name, str(metadata[MODEL_KEY]),
                                          int(dimension) if dimension is not None else None,
                                          int(collection.count())))
    return sorted(found, key=lambda item: item.name)
