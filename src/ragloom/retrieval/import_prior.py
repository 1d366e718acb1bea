"""Import blocks rank below every other candidate unless the question is about imports.

A run of ``use`` / ``import`` / ``#include`` lines that the chunker could not join to the
code after it stays a chunk of its own (``kind = "imports"``). It shares a file's and a
framework's names with the question, so BM25 and the model both like it, but it answers
no question in words: "where is the audio equalizer implemented" wants the equalizer, not
the two lines importing it. Such chunks are multiplied by ``retrieval.import_weight``
(0: after every other candidate, still returned when nothing else is) unless the query
says ``imports``, ``imported``, ``importing``, ``import statement``, ``require`` or
``dependencies``; a chunk found by the exact name the query uses is never demoted.
"""

from __future__ import annotations

import re

from ragloom.retrieval.priors import Factor, reweigh
from ragloom.types import SearchResult

_ABOUT_IMPORTS = re.compile(
    r"\b(imports|imported|importing|import\s+(statements?|lines?|blocks?|list|order)|requires?|"
    r"dependenc(y|ies)|use\s+statements?)\b", re.IGNORECASE)


def asks_about_imports(query: str) -> bool:
    """Whether ``query`` asks about imports ("which files import numpy" does not count:
    "import" alone is also a feature, "import data from Toggl")."""
    return _ABOUT_IMPORTS.search(query) is not None


def demote_imports(results: list[SearchResult], weight: float) -> list[SearchResult]:
    """``results`` re-sorted with the rank score of import chunks times ``weight`` (a
    negative score divided by it; 0 puts them last); ``rank_score`` is kept."""
    return reweigh(results, [prior_for_imports(weight)])


def prior_for_imports(weight: float) -> Factor:
    """The import prior as a factor (``priors.reweigh``): ``weight`` for an import block
    not found by the exact name the query uses, else 1."""
    def factor(result: SearchResult) -> float:
        return weight if _is_imports(result) and "name" not in result.retrievers else 1.0
    return factor


def _is_imports(result: SearchResult) -> bool:
    return result.metadata.get("kind") == "imports"
