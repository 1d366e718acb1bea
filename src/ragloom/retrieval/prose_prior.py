"""Prose documents rank below the code when a question asks how the application does
something or where in it something is.

An application's README and docs pages describe its features in the words its users, and
so its developers, ask in; the code doing the work says it in identifiers. For a question
about how something happens ("how does the app read a page's title, description and
preview image when I paste a link", "what happens when I save a url that I have already
bookmarked") or where something is ("where are the REST API endpoints registered", "where
does a new user account get its profile") the documents often came first, several
sections of one page at a time, while the answer is the code: a page says what a feature
does, not how or where it is done (linkding: a troubleshooting page on wrong titles above
the scraper; BabyBuddy: three sections of the API docs above the URL conf).

So when a query asks how something works (``wiring_prior.asks_how_it_works``: "how does /
is / are X", "what happens"; not "how do I ...", which asks for instructions, and not
"why": a reason, which a README gives as often as the code) or where something is
("where ..."), a chunk of a prose document (``source_type = docs``: a README, a docs page,
a changelog) is multiplied by ``PROSE_WEIGHT`` in the one prior sort (``priors.reweigh``),
unless the query names documentation ("docs", "readme", "guide", ...) or the chunk is
found by the exact name the query uses. A corpus of documents only (every candidate
prose) keeps its order: every candidate gets the same factor. A much better match still
comes first. No configuration key: measured, not tuned (docs/benchmarks.md).
"""

from __future__ import annotations

import re

from ragloom.retrieval.priors import Factor
from ragloom.retrieval.wiring_prior import asks_how_it_works
from ragloom.types import SearchResult

#: How much the rank score of a prose document counts for a question about the code.
PROSE_WEIGHT = 0.7
_WHY = re.compile(r"\bwhy\b", re.IGNORECASE)
_WHERE = re.compile(r"\bwhere\b", re.IGNORECASE)
_ABOUT_DOCS = re.compile(r"\b(?:docs?|documentation|documented|readme|guides?|manual|handbook|"
                         r"tutorials?|wiki|changelog|release\s+notes)\b", re.IGNORECASE)


def asks_about_the_code(query: str) -> bool:
    """Whether ``query`` asks how something works (not why) or where something is, and
    names no documentation."""
    if _ABOUT_DOCS.search(query) is not None:
        return False
    return _WHERE.search(query) is not None \
        or (asks_how_it_works(query) and _WHY.search(query) is None)


def prior_for_prose(query: str) -> list[Factor]:
    """``PROSE_WEIGHT`` for a prose document's chunk not found by the exact name the query
    uses, else 1; none when the query does not ask about the code."""
    if not asks_about_the_code(query):
        return []

    def factor(result: SearchResult) -> float:
        prose = result.metadata.get("source_type") == "docs"
        return PROSE_WEIGHT if prose and "name" not in result.retrievers else 1.0
    return [factor]
