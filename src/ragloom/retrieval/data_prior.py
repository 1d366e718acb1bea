"""Data rows rank below comparable code and documents unless the question is about data.

A CSV / TSV / JSON-lines file (``source_type = data``) is chunked row by row, and a row
shares an application's words (its column values name the entities the code handles) with
little else to dilute them, so rows of a table or an import fixture came into the top 5 of
questions about behaviour ("how is the hourly rate of a time entry chosen": two rows of
an import test file around the service that chooses it). Such chunks are multiplied by
``DATA_WEIGHT`` in the one prior sort (``priors.reweigh``) unless the query says ``csv``,
``tsv``, ``data``, ``dataset``, ``row`` or ``spreadsheet``; a chunk found by the exact name
the query uses is never demoted. No configuration key: measured, not tuned per index.
"""

from __future__ import annotations

import re

from ragloom.retrieval.priors import Factor
from ragloom.types import SearchResult

#: How much the rank score of a data row counts for a query not about data.
DATA_WEIGHT = 0.5
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
