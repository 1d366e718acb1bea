"""The write path: discovering, reading, chunking, embedding and storing files."""

from typing import TYPE_CHECKING

from ragloom._lazy import lazy_exports

if TYPE_CHECKING:
    from ragloom.indexing.indexer import Indexer
    from ragloom.indexing.manifest import FileRecord, Manifest

_EXPORTS = {
    "Indexer": "ragloom.indexing.indexer",
    "FileRecord": "ragloom.indexing.manifest",
    "Manifest": "ragloom.indexing.manifest",
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

__all__ = ["FileRecord", "Indexer", "Manifest"]
