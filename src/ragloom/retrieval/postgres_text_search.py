"""BM25 through the pg_textsearch extension (``[rag.vector_store.postgres] sparse =
"pg_textsearch"``): its ``bm25`` index finds the top k by block-max WAND instead of summing
every posting in SQL. It indexes ragloom's own tokens, written as hex words, with the local
index's k1 and b; its scores use Lucene's idf, ln(1 + (N - df + 0.5) / (df + 0.5)), and a
coarsely kept length, so they differ a little from the postings' scores.

The table holds one row per chunk (``<table>_tokens``: id, tokens), written in the
writer's transaction with the chunk's postings and deleted with the chunk (foreign key).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from ragloom.errors import StoreError
from ragloom.stores.postgres.connection import Database
from ragloom.stores.postgres.objects import check_owned
from ragloom.stores.postgres.schema import chunks_lacking, text_search_statements
from ragloom.stores.postgres.settings import Tables
from ragloom.types import Metadata

logger = logging.getLogger("ragloom")

#: The extension's BM25 (its operator is the negated score, for an ascending index order).
#: Chunks holding no query term score 0 and come last, after every match (a filter can
#: leave fewer matches than k): the caller drops them, rather than a WHERE clause, which
#: would score each row a second time (3 ms of 7 at 1M chunks).
TEXT_SEARCH = """
SELECT t.id, -(t.tokens <@> to_bm25query(%(words)s, %(index)s)) AS score
FROM {tokens} t {join} WHERE {where}
ORDER BY t.tokens <@> to_bm25query(%(words)s, %(index)s) LIMIT %(k)s
"""


def hex_words(tokens: Sequence[str]) -> str:
    """Tokens as words Postgres' text parser keeps whole (``class_count_``, ``é``): each
    one's UTF-8 bytes in hex after an ``x``; the same tokens give the same words."""
    return " ".join("x" + token.encode("utf-8").hex() for token in tokens)


class TextSearchTable:
    """The extension's table and index of one Postgres index."""

    def __init__(self, writer: Database, reader: Database, tables: Tables,
                 may_create: bool = True) -> None:
        self.writer, self.reader, self.tables = writer, reader, tables
        #: ``create = false``: a missing table is an error, not created.
        self.may_create = may_create

    @property
    def index_name(self) -> str:
        return f'"{self.tables.schema}"."{self.tables.table}_tokens_bm25"'

    def query(self, tokens: Sequence[str]) -> dict[str, str]:
        """The parameters of TEXT_SEARCH for a query of ``tokens``."""
        return {"words": hex_words(tokens), "index": self.index_name}

    def exists(self) -> bool:
        return self.reader.execute("check", "SELECT to_regclass(%s)",
                                   (self.tables.tokens,))[0][0] is not None

    def create(self) -> None:
        """The extension, table and index, marked as ragloom's; a clear StoreError when the server
        lacks the extension or ``create = false`` forbids it."""
        t = self.tables
        if not self.may_create:
            raise StoreError(f"{t.label} has no pg_textsearch table ({t.tokens}), and "
                             f"[rag.vector_store.postgres] create = false forbids creating it")
        check_owned(self.writer, t)  # an object of those names that is not ragloom's stays
        try:
            with self.writer.transaction("pg_textsearch"):
                for statement in text_search_statements(t):
                    self.writer.execute("pg_textsearch", statement)
        except StoreError as exc:
            raise StoreError(f"[rag.vector_store.postgres] sparse = \"pg_textsearch\" needs that "
                             f"extension on the server, in shared_preload_libraries, or set "
                             f"sparse = \"sql\": {exc}") from None

    def fill(self, tokens_of: Callable[[str, Metadata], list[str]]) -> bool:
        """Write the rows of the chunks that lack one; True when it wrote."""
        t = self.tables
        written = 0
        with self.writer.transaction("pg_textsearch"), self.writer.cursor("pg_textsearch") as cursor:
            for rows in chunks_lacking(self.writer, t, t.tokens):
                with cursor.copy(f"COPY {t.tokens} (id, tokens) FROM STDIN") as copy:
                    for chunk_id, text, metadata in rows:
                        copy.write_row((chunk_id, hex_words(tokens_of(text, metadata))))
                written += len(rows)
        if written:
            logger.info("wrote pg_textsearch rows of %d chunks of %s", written, t.label)
        return bool(written)
