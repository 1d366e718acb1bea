"""Chunkers: cut file text into chunks with path, index and line metadata."""

from ragloom.chunking.base import Chunker, chunk_id, content_hash
from ragloom.chunking.character import CharacterChunker
from ragloom.chunking.registry import FileChunker, language_for_path

__all__ = [
    "CharacterChunker",
    "Chunker",
    "FileChunker",
    "chunk_id",
    "content_hash",
    "language_for_path",
]
