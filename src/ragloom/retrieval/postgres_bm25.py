"""BM25 in SQL: postings and document lengths in the index's database, scored by grouped
queries with the same tokenizer and the same Okapi formula (k1, b, and rank-bm25's epsilon
floor for negative idf) as ``retrieval.bm25``, so scores equal the local index's.

A search reads the postings of its rarest terms in full and only probes a frequent term's
postings for the chunks found (MaxScore): each term's best possible weight is bounded from
its df, largest tf and smallest length, so the result is the exact top k, with today's idf
and average length (nothing is precomputed that a later write would make stale).

With ``sparse = "pg_textsearch"`` a search asks that extension's index instead
(``retrieval.postgres_text_search``). The postings are still kept (the second pass of
query feedback, and a reader of an index whose text table is not built yet).

Writes join the writer's transaction, so a window's chunks and their postings commit
together; deleting a chunk deletes its postings (foreign keys, ``ON DELETE CASCADE``).
"""

from __future__ import annotations

import logging
import math
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from ragloom.chunking.context import IndexedText, plain_text
from ragloom.filters import Condition, Node
from ragloom.retrieval.feedback import expand_query
from ragloom.retrieval.postgres_feedback import FeedbackStats
from ragloom.retrieval.postgres_text_search import TEXT_SEARCH, TextSearchTable, hex_words
from ragloom.retrieval.symbols import MAX_DEFINITIONS, defined_names, query_names
from ragloom.retrieval.tokenize import Tokenizer, tokenize
from ragloom.stores.postgres.connection import Database
from ragloom.stores.postgres.schema import chunks_lacking
from ragloom.stores.postgres.settings import Tables
from ragloom.stores.postgres.where import conditions_clause
from ragloom.types import Metadata, MetadataValue

logger = logging.getLogger("ragloom")
K1, B, EPSILON = 1.5, 0.75, 0.25

#: One term's Okapi weight in one chunk: w = query weight x idf (floored), then
#: w x tf x (k1 + 1) / (tf + k1 x (1 - b) + k1 x b / avgdl x length).
_TERM = "w.weight * p.tf * %(k1_plus_1)s / (p.tf + %(base)s + %(slope)s * p.length)"

#: Every posting of every query term, summed per chunk.
_SCORE_ALL = f"""
SELECT p.id, sum({_TERM}) AS score
FROM unnest(%(terms)s::text[], %(weights)s::float8[]) AS w(term, weight)
JOIN {{postings}} p ON p.term = w.term {{join}}
WHERE {{where}}
GROUP BY p.id ORDER BY score DESC, p.id LIMIT %(k)s
"""

#: The chunks holding an essential term, each scored over every query term (the other
#: terms' postings probed by (term, id), never scanned).
_SCORE_ESSENTIAL = f"""
SELECT c.id, sum({_TERM}) AS score
FROM (SELECT DISTINCT p.id FROM unnest(%(essential)s::text[]) AS e(term)
      JOIN {{postings}} p ON p.term = e.term {{join}} WHERE {{where}}) AS c
CROSS JOIN unnest(%(terms)s::text[], %(weights)s::float8[]) AS w(term, weight)
CROSS JOIN LATERAL (SELECT tf, length FROM {{postings}}  -- LIMIT 1: one primary-key probe
                    WHERE term = w.term AND id = c.id LIMIT 1) AS p
GROUP BY c.id ORDER BY score DESC, c.id LIMIT %(k)s
"""

#: What bounds each term's best weight in any chunk: its df, largest tf, smallest length.
_BOUNDS = """
SELECT s.documents, s.tokens, t.term, t.df, t.max_tf, t.min_length
FROM {stats} s LEFT JOIN {terms} t ON t.term = ANY(%s)
"""

#: rank-bm25's floor for a negative idf: EPSILON x the mean idf of every term.
_FLOOR = """
SELECT %s * avg(ln(s.documents::float8 - t.df::float8 + 0.5) - ln(t.df::float8 + 0.5))
FROM {terms} t, {stats} s
"""

#: Longer defined names are not kept as symbols (a btree row holds at most 2,704 bytes).
_LONGEST_NAME = 1024

#: A query whose terms have at most this many postings in all is scored in one scan.
_SCAN_BELOW = 20_000

#: Pruning is tried when its probes, each weighed as this many postings read in a scan,
#: cost less than the scan (both read the primary key's index alone; a probe costs ~3
#: scanned postings, and a step that fails to prune is paid on top). Measured on 400k real
#: chunks, sparse top 100 of 6-12-word queries, p50: 3 -> 48-63 ms, 10 -> 37-40 ms, never
#: pruning 35-40 ms; 10 keeps pruning for a rare term beside very frequent ones.
_PROBE_COST = 10

#: Bounds are widened by this much, so float rounding never prunes a chunk that belongs.
_MARGIN = 1e-6


class PostgresSparseIndex:
    """The BM25 side of a Postgres index (the interface of ``retrieval.sparse.SparseIndex``)."""

    def __init__(self, writer: Database, reader: Database, tables: Tables,
                 tokenizer: Tokenizer = tokenize, text_of: IndexedText = plain_text,
                 read_only: bool = False, text_search: bool = False,
                 may_create: bool = True) -> None:
        self.writer, self.reader, self.tables = writer, reader, tables
        self.tokenizer = tokenizer
        self.text_of = text_of
        self.read_only = read_only
        #: Whether searches ask pg_textsearch (``sparse = "pg_textsearch"``, table built).
        self.text_search = text_search
        self.text_table = TextSearchTable(writer, reader, tables, may_create)
        #: Whether the index has a pg_textsearch table (a writer with ``sparse = "sql"``
        #: still deletes the rows of the chunks it rewrites there; known after sync_with).
        self.has_text_table = False
        self.path = None
        #: The terms whose postings the last search read in full (the others were probed).
        self.last_essential: list[str] = []

    def __len__(self) -> int:
        return int(self.reader.execute("count", f"SELECT documents FROM {self.tables.stats}")[0][0])

    def ids(self) -> list[str]:
        return [row[0] for row in self.reader.execute("ids", f"SELECT id FROM {self.tables.lengths}")]

    # -- writing (inside the writer's transaction) ------------------------------------------

    def add(self, ids: Sequence[str], texts: Sequence[str], metadatas: Sequence[Metadata]) -> None:
        """Postings, lengths and defined names of chunks the store already holds (replaced)."""
        if not ids:
            return
        postings: list[tuple[str, str, int, int]] = []
        lengths: list[tuple[str, int]] = []
        symbols: list[tuple[str, str]] = []
        words: list[tuple[str, str]] = []
        for chunk_id, text, metadata in zip(ids, texts, metadatas):
            tokens = self._tokens(text, metadata)
            lengths.append((chunk_id, len(tokens)))
            postings.extend((term, chunk_id, tf, len(tokens)) for term, tf in Counter(tokens).items())
            symbols.extend((name, chunk_id) for name in dict.fromkeys(defined_names(metadata))
                           if len(name.encode("utf-8", "surrogatepass")) <= _LONGEST_NAME)
            words.append((chunk_id, hex_words(tokens)))
        t = self.tables
        tables: list[tuple[str, str, Sequence[tuple[object, ...]]]] = [
            (t.lengths, "id, length", lengths), (t.postings, "term, id, tf, length", postings),
            (t.symbols, "name, id", symbols)]
        if self.text_search:
            tables.append((t.tokens, "id, tokens", words))
        replaced = [table for table, _, _ in tables]
        if self.has_text_table and not self.text_search:
            replaced.append(t.tokens)  # the next pg_textsearch writer writes these rows again
        with self.writer.transaction("BM25 add"), self.writer.cursor("BM25 add") as cursor:
            for table in replaced:
                cursor.execute(f"DELETE FROM {table} WHERE id = ANY(%s)", (list(ids),))
            for table, columns, rows in tables:
                with cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                    for row in rows:
                        copy.write_row(row)
            cursor.execute(f"INSERT INTO {t.info} VALUES ('tokenizer', %s) ON CONFLICT (key) "
                           "DO UPDATE SET value = excluded.value", (self.tokenizer.signature,))

    def remove(self, ids: Sequence[str]) -> None:
        """Nothing to do: deleting a chunk from the store deleted its postings."""

    def clear(self) -> None:
        """Nothing to do: the store's reset emptied the postings with the chunks."""

    def persist(self) -> None:
        """Committed with the writer's transaction."""

    def verify_files(self) -> list[str]:
        return []  # no files: the server checks its own pages

    def sync_with(self, store: Any) -> bool:
        """Rebuild the postings from the stored texts when they lack chunks or were made by
        another tokenizer, and (``sparse = "pg_textsearch"``) write the text rows chunks
        lack; True when it wrote (a reader only warns)."""
        self.has_text_table = self.text_table.exists()
        if self.text_search and not self.has_text_table:
            if self.read_only:
                logger.warning("%s has no pg_textsearch table yet (a writer builds it): BM25 "
                               "runs on the postings meanwhile", self.tables.label)
                self.text_search = False
            else:  # an index built with sparse = "sql" switches over
                self.text_table.create()
                self.has_text_table = True
        rebuilt = self._sync_postings()
        filled = self.text_search and not self.read_only and self.text_table.fill(self._tokens)
        return rebuilt or filled

    def _tokens(self, text: str, metadata: Metadata) -> list[str]:
        return self.tokenizer(self.text_of(text, metadata))

    def _sync_postings(self) -> bool:
        t = self.tables
        built = self.reader.execute("check", f"SELECT value FROM {t.info} WHERE key = 'tokenizer'")
        missing = self.reader.execute(
            "check", f"SELECT count(*) FROM {t.chunks} c WHERE NOT EXISTS "
            f"(SELECT 1 FROM {t.lengths} l WHERE l.id = c.id)")[0][0]
        stale = bool(built) and built[0][0] != self.tokenizer.signature
        if not stale and not missing:
            return False
        if self.read_only:
            logger.warning("BM25 postings of %s are out of step (%d chunks missing%s); a writer "
                           "rebuilds them", t.label, missing, ", other tokenizer" if stale else "")
            return False
        logger.info("BM25 postings of %s out of step with the chunks: rebuilding them", t.label)
        with self.writer.transaction("BM25 rebuild"):
            if stale:
                for table in (t.postings, t.lengths, t.symbols):
                    self.writer.execute("BM25 rebuild", f"DELETE FROM {table}")
                if self.has_text_table:
                    self.writer.execute("BM25 rebuild", f"DELETE FROM {t.tokens}")
            for rows in chunks_lacking(self.writer, t, t.lengths):
                self.add([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows])
        return True

    # -- reading ----------------------------------------------------------------------------

    def search(self, query: str, k: int, conditions: list[Node] | None = None,
               feedback_docs: int = 0, feedback_terms: int = 10,
               feedback_weight: float = 0.5) -> list[tuple[str, float]]:
        """Top ``k`` (id, BM25 score), filters applied in SQL; with ``feedback_docs`` the
        query is expanded with terms of the first pass's top documents and run again."""
        tokens = self.tokenizer(query)
        if not tokens or k <= 0:
            return []
        wanted = max(k, feedback_docs)
        if self.text_search:
            hits = [hit for hit in self._run(TEXT_SEARCH, self.text_table.query(tokens), wanted,
                                             conditions) if hit[1] > 0]
        else:
            hits = self._top_k(dict(Counter(tokens)), wanted, conditions)
        if feedback_docs > 0 and hits:
            stats = FeedbackStats(self.reader, self.tables,
                                  [doc_id for doc_id, _ in hits[:feedback_docs]], len(self))
            weights = expand_query(stats, tokens, hits, feedback_docs, feedback_terms,
                                   feedback_weight)
            hits = self._top_k(weights, k, conditions)
        return hits[:k]

    def _top_k(self, weights: dict[str, float], k: int,
               conditions: list[Node] | None) -> list[tuple[str, float]]:
        """The exact top ``k``, reading only the postings it has to (MaxScore): a chunk
        holding only terms whose best possible weights sum below the k-th score found so
        far cannot enter the top ``k``, so those terms' postings (a frequent term's long
        list) are only probed for the chunks that hold a rarer term."""
        plan = self._plan(weights)
        if plan is None:
            return []
        okapi, bounds = plan
        order = sorted(bounds, key=lambda term: (-bounds[term], term))
        self.last_essential = list(order)
        if any(weight <= 0 for weight in okapi["weights"]):
            order = []  # a weight that is not positive: bounds prune nothing safely
        df = okapi.pop("df")
        postings = sum(df.values())
        if postings <= _SCAN_BELOW:
            order = []  # one scan of so few postings beats a round trip per pruning step
        for count in range(1, len(order)):
            essential = order[:count]
            if sum(df[term] for term in essential) * len(order) * _PROBE_COST > postings:
                break  # probing every query term for that many chunks costs more than a scan
            hits = self._run(_SCORE_ESSENTIAL, {**okapi, "essential": essential}, k,
                             conditions)
            rest = sum(bounds[term] for term in order[count:]) * (1 + _MARGIN)
            if len(hits) >= k and rest < hits[k - 1][1]:
                self.last_essential = essential
                return hits
        return self._run(_SCORE_ALL, okapi, k, conditions)

    def _plan(self, weights: dict[str, float]) -> tuple[dict[str, Any], dict[str, float]] | None:
        """The Okapi parameters of the query terms some chunk holds (each term's weight:
        query weight x idf, a negative idf floored as rank-bm25 does), and each term's
        largest possible weight in any chunk; None when no chunk holds a query term."""
        t = self.tables
        rows = self.reader.execute("BM25 search", _BOUNDS.format(stats=t.stats, terms=t.terms),
                                   (list(weights),))
        documents, tokens = float(rows[0][0]), float(rows[0][1])
        found = [row[2:] for row in rows if row[2] is not None]
        if not found:
            return None
        idf = {term: math.log(documents - df + 0.5) - math.log(df + 0.5)
               for term, df, _, _ in found}
        floor = 0.0
        if any(value < 0 for value in idf.values()):
            floor = float(self.reader.execute("BM25 search", _FLOOR.format(
                stats=t.stats, terms=t.terms), (EPSILON,))[0][0])
        base, slope = K1 * (1 - B), K1 * B / (tokens / documents)
        terms = [term for term, _, _, _ in found]
        term_weights = [weights[term] * (idf[term] if idf[term] >= 0 else floor) for term in terms]
        bounds = {term: weight * (K1 + 1) * max_tf / (max_tf + base + slope * min_length)
                  for (term, _, max_tf, min_length), weight in zip(found, term_weights)}
        okapi = {"terms": terms, "weights": term_weights, "k1_plus_1": K1 + 1, "base": base,
                 "slope": slope, "df": {term: df for term, df, _, _ in found}}
        return okapi, bounds

    def _run(self, template: str, params: dict[str, Any], k: int,
             conditions: list[Node] | None) -> list[tuple[str, float]]:
        where, where_params = conditions_clause(conditions or [], "c.metadata")
        # the filter's positional placeholders as named ones, beside the query's
        names = iter(range(len(where_params)))
        where = re.sub(r"%%|%s", lambda m: m[0] if m[0] == "%%" else f"%(f{next(names)})s", where)
        join = f"JOIN {self.tables.chunks} c USING (id)" if conditions else ""
        sql = template.format(postings=self.tables.postings, tokens=self.tables.tokens, join=join,
                              where=where)
        values = {**params, "k": k, **{f"f{i}": value for i, value in enumerate(where_params)}}
        rows = self.reader.execute("BM25 search", sql, values)
        return [(doc_id, float(score)) for doc_id, score in rows]

    def defining(self, query: str, conditions: list[Node] | None = None) -> list[str]:
        """Ids of the chunks defining a name ``query`` uses (see ``retrieval.symbols``)."""
        names = query_names(query)
        if not names:
            return []
        where, params = conditions_clause(conditions or [], "c.metadata")
        rows = self.reader.execute(
            "symbol lookup", f"SELECT s.name, s.id FROM {self.tables.symbols} s JOIN "
            f"{self.tables.chunks} c USING (id) WHERE s.name = ANY(%s) AND {where} ORDER BY s.id",
            [names, *params])
        total = dict(self.reader.execute(
            "symbol lookup", f"SELECT name, count(*) FROM {self.tables.symbols} WHERE name = ANY(%s) "
            "GROUP BY name", (names,)))
        places: dict[str, list[str]] = {}
        for name, chunk_id in rows:
            places.setdefault(name, []).append(chunk_id)
        found: list[str] = []
        for name in names:
            if total.get(name, 0) <= MAX_DEFINITIONS:
                found.extend(place for place in places.get(name, []) if place not in found)
        return found

    def chunks_with(self, key: str, values: Sequence[MetadataValue]) -> list[tuple[str, Metadata]]:
        """(id, metadata) of every chunk whose metadata ``key`` equals one of ``values``
        (``content_hash`` through its column's index)."""
        if not values:
            return []
        if key == "content_hash":
            where, params = "content_hash = ANY(%s)", [[str(value) for value in values]]
        else:
            where, params = conditions_clause([Condition(key, "$in", list(values))], "metadata")
        return [(row[0], row[1]) for row in self.reader.execute(
            "lookup", f"SELECT id, metadata FROM {self.tables.chunks} WHERE {where} ORDER BY id",
            params)]

    def distinct_values(self, key: str) -> list[MetadataValue]:
        """Sorted distinct values of metadata ``key`` over every chunk."""
        rows = self.reader.execute(
            "distinct values", f"SELECT DISTINCT metadata -> %s FROM {self.tables.chunks} "
            "WHERE metadata ? %s", (key, key))
        return sorted((row[0] for row in rows), key=lambda value: (type(value).__name__, value))

