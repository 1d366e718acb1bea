"""The embedding cache of a Postgres index: vectors by (namespace, text hash) in
``<table>_embeddings``, so each text is embedded once across every writer of the fleet.
It has its own connection: entries commit at once, outside any window's transaction, and
survive a crash of the writer that computed them."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ragloom.stores.postgres.connection import Database
from ragloom.stores.postgres.settings import Tables


class PostgresEmbeddingCache:
    """The interface of ``embeddings.cache.EmbeddingCache``."""

    def __init__(self, db: Database, tables: Tables) -> None:
        self.db, self.tables = db, tables
        self.path = None

    def get_many(self, namespace: str, hashes: Sequence[str], dimension: int) -> dict[str, np.ndarray]:
        """The cached vectors among ``hashes`` (missing ones are simply absent)."""
        if not hashes:
            return {}
        rows = self.db.execute("embedding cache", f"SELECT hash, vector FROM {self.tables.cache} "
                               "WHERE namespace = %s AND hash = ANY(%s)",
                               (namespace, list(dict.fromkeys(hashes))))
        found: dict[str, np.ndarray] = {}
        for text_hash, blob in rows:
            vector = np.frombuffer(bytes(blob), dtype=np.float32)
            if vector.shape == (dimension,):
                found[text_hash] = vector
        return found

    def put_many(self, namespace: str, vectors: dict[str, np.ndarray]) -> None:
        """Store vectors by text hash in one transaction (an entry already there is kept)."""
        if not vectors:
            return
        with self.db.transaction("embedding cache"), self.db.cursor("embedding cache") as cursor:
            cursor.executemany(
                f"INSERT INTO {self.tables.cache} VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
                [(namespace, text_hash, np.asarray(vector, dtype=np.float32).tobytes())
                 for text_hash, vector in vectors.items()])

    def count(self) -> int:
        return int(self.db.execute("embedding cache", f"SELECT count(*) FROM {self.tables.cache}")[0][0])

    def close(self) -> None:
        self.db.close()
