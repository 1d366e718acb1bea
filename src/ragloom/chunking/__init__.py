"""Chunkers: cut file text into chunks with path, index and line metadata."""

from typing import TYPE_CHECKING

from ragloom._lazy import lazy_exports

if TYPE_CHECKING:
    from ragloom.chunking.base import Chunker, chunk_id
    from ragloom.chunking.character import CharacterChunker
    from ragloom.chunking.registry import FileChunker, language_for_path
    from ragloom.digests import content_hash

_EXPORTS = {
    "Chunker": "ragloom.chunking.base",
    "chunk_id": "ragloom.chunking.base",
    "content_hash": "ragloom.digests",
    "CharacterChunker": "ragloom.chunking.character",
    "FileChunker": "ragloom.chunking.registry",
    "language_for_path": "ragloom.chunking.registry",
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

__all__ = [
    "CharacterChunker",
    "Chunker",
    "FileChunker",
    "chunk_id",
    "content_hash",
    "language_for_path",
]
