"""Data rows rank below comparable code and documents unless the question is about data.

A CSV / TSV / JSON-lines file (``source_type = data``) is chunked row by row, and a row
shares an application's words (its column values name the entities the code handles) with
little else to dilute them, so rows of a table or an import fixture came into the top 5 of
questions about behaviour ("how is the hourly rate of a time entry chosen": two rows of
an import test file around the service that chooses it). Such chunks are multiplied by
``DATA_WEIGHT`` in the one prior sort (``priors.reweigh``) unless the query says ``csv``,
``tsv``, ``data``, ``dataset``, ``row`` or ``spreadsheet``; a chunk found by the exact name
the query uses is never demoted. No configuration key: measured, not tuned per index.

Before any prior, a big table crowds the candidates out: its rows embed alike, so a
question about the entity they measure ("how are the weight percentile tables filled
in") found 100 rows of two percentile CSVs as its 100 nearest chunks, and the data
migration loading them, 7th among the rest, was no candidate at all. So for a query not
about data the dense candidates keep at most ``DATA_ROWS_PER_FILE`` rows of one data file
(``thin_data_rows``), the others filled from a search without data rows.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable

from ragloom.filters import MATCHES_NOTHING, Filters
from ragloom.retrieval.fusion import tie_key
from ragloom.retrieval.priors import Factor
from ragloom.retrieval.retrievers import Hit
from ragloom.types import SearchResult

#: How much the rank score of a data row counts for a query not about data.
DATA_WEIGHT = 0.5
#: Rows of one data file the dense candidates of a query not about data keep.
DATA_ROWS_PER_FILE = 3
#: ``source_type != data``, the filter of the search filling the candidates' other places.
_NO_DATA: Filters = {"source_type": {"$ne": "data"}}
_ABOUT_DATA = re.compile(r"\b(csv|tsv|jsonl|ndjson|data|datasets?|rows?|spreadsheets?)\b",
                         re.IGNORECASE)


def asks_about_data(query: str) -> bool:
    """Whether ``query`` uses a word about data files or their rows (whole words)."""
    return _ABOUT_DATA.search(query) is not None


def prior_for_data(query: str) -> list[Factor]:
    """``DATA_WEIGHT`` for a data chunk not found by the exact name the query uses, else 1;
    none when the query is about data."""
    if asks_about_data(query):
        return []

    def factor(result: SearchResult) -> float:
        demoted = result.metadata.get("source_type") == "data" and "name" not in result.retrievers
        return DATA_WEIGHT if demoted else 1.0
    return [factor]


def thin_data_rows(hits: list[Hit], k: int, without_data: Callable[[], list[Hit]]) -> list[Hit]:
    """The first ``k`` of ``hits`` (best first) with at most ``DATA_ROWS_PER_FILE`` data rows
    of one file, the places the others held filled from ``without_data()`` (the same search
    without data rows); ``hits`` itself when no file has more."""
    counts: Counter[str] = Counter()
    kept = []
    for hit in hits:
        meta = hit.row.metadata if hit.row is not None else {}
        if meta.get("source_type") == "data":
            counts[str(meta.get("path"))] += 1
            if counts[str(meta.get("path"))] > DATA_ROWS_PER_FILE:
                continue
        kept.append(hit)
    if len(kept) == len(hits):
        return hits
    chosen = {hit.id for hit in kept}
    kept += [hit for hit in without_data() if hit.id not in chosen]
    return sorted(kept, key=lambda hit: tie_key(hit.id, hit.score))[:k]


def without_data(filters: Filters | None) -> Filters:
    """``filters`` (as the store takes them) and ``source_type != data``."""
    if filters is MATCHES_NOTHING:
        return filters
    return {"$and": [dict(filters), _NO_DATA]} if filters else _NO_DATA
