"""What query feedback (``retrieval.feedback.expand_query``) reads of a Postgres BM25 index:
term frequencies of the first pass's top chunks and their terms' document frequencies,
fetched once in two queries instead of one lookup per term."""

from __future__ import annotations

from ragloom.stores.postgres.connection import Database
from ragloom.stores.postgres.settings import Tables


class FeedbackStats:
    """The statistics of ``doc_ids`` (the first pass's top chunks) in an index of ``size``."""

    def __init__(self, reader: Database, tables: Tables, doc_ids: list[str], size: int) -> None:
        rows = reader.execute("BM25 feedback", f"SELECT id, term, tf FROM {tables.postings} "
                              "WHERE id = ANY(%s)", (doc_ids,))
        self._tf: dict[str, dict[str, int]] = {}
        for doc_id, term, tf in rows:
            self._tf.setdefault(doc_id, {})[term] = tf
        terms = sorted({term for frequencies in self._tf.values() for term in frequencies})
        self._df = dict(reader.execute(
            "BM25 feedback", f"SELECT term, df FROM {tables.terms} WHERE term = ANY(%s)", (terms,)))
        self._size = size

    def __len__(self) -> int:
        return self._size

    def term_frequencies(self, doc_id: str) -> dict[str, int]:
        return self._tf.get(doc_id, {})

    def document_frequency(self, term: str) -> int:
        return int(self._df.get(term, 0))
