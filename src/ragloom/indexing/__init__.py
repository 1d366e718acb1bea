"""The write path: discovering, reading, chunking, embedding and storing files."""

from ragloom.indexing.indexer import Indexer
from ragloom.indexing.manifest import FileRecord, Manifest

__all__ = ["FileRecord", "Indexer", "Manifest"]
