"""Chunk texts of an embedded Chroma store, kept beside its database instead of in it.

Embedded Chroma keeps a document four times: as a metadata row, in a string index whose
entries overflow to a 4 KB page each, and twice in a full-text index ragloom never queries
(measured on the ``rich`` sources: 9 KB of the 13 KB Chroma took per chunk). Here a text
is one row of a rowid table (zlib-compressed, about a third of its size) with a small
index on the id. Writes keep the collection's ids a subset of this table's: texts are
written before the vectors and deleted after them, so a crash leaves at worst unused
texts, never a chunk without its text. A server (``vector_store.url``) keeps documents
itself: other machines read them there.
"""

from __future__ import annotations

import threading
import zlib
from collections.abc import Sequence
from pathlib import Path

from ragloom.sqlite_db import close, connect, transaction

FILE_NAME = "ragloom_texts.sqlite"
_PAGE = 900


class ChromaTexts:
    """Text by chunk id in ``<store folder>/ragloom_texts.sqlite``."""

    def __init__(self, folder: Path, read_only: bool = False) -> None:
        self.path = folder / FILE_NAME
        self.read_only = read_only
        self._lock = threading.Lock()
        self._connection = (connect(self.path, read_only=True) if read_only and self.path.is_file()
                            else None if read_only else connect(self.path))
        if self._connection is not None and not read_only:
            self._connection.execute("CREATE TABLE IF NOT EXISTS texts (id TEXT NOT NULL UNIQUE, "
                                     "text BLOB NOT NULL)")

    def put(self, ids: Sequence[str], texts: Sequence[str]) -> None:
        if self._connection is None:
            return
        rows = [(chunk_id, zlib.compress(text.encode("utf-8", "surrogatepass"), 6))
                for chunk_id, text in zip(ids, texts)]
        with transaction(self._connection, self._lock) as db:
            db.executemany("INSERT OR REPLACE INTO texts (id, text) VALUES (?, ?)", rows)

    def get(self, ids: Sequence[str]) -> dict[str, str]:
        """The texts held among ``ids`` (a chunk written by an earlier version has none:
        its text is Chroma's document)."""
        found: dict[str, str] = {}
        if self._connection is None:
            return found
        unique = list(dict.fromkeys(ids))
        with self._lock:
            for start in range(0, len(unique), _PAGE):
                part = unique[start:start + _PAGE]
                for chunk_id, blob in self._connection.execute(
                        f"SELECT id, text FROM texts WHERE id IN ({','.join('?' * len(part))})", part):
                    found[chunk_id] = zlib.decompress(blob).decode("utf-8", "surrogatepass")
        return found

    def delete(self, ids: Sequence[str]) -> None:
        if self._connection is None:
            return
        unique = list(dict.fromkeys(ids))
        with transaction(self._connection, self._lock) as db:
            for start in range(0, len(unique), _PAGE):
                part = unique[start:start + _PAGE]
                db.execute(f"DELETE FROM texts WHERE id IN ({','.join('?' * len(part))})", part)

    def clear(self) -> None:
        if self._connection is not None:
            with transaction(self._connection, self._lock) as db:
                db.execute("DELETE FROM texts")

    def close(self) -> None:
        if self._connection is not None:
            with self._lock:
                close(self._connection)
                self._connection = None
