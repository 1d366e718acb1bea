"""Prose documents rank below the code when a question asks how the application does
something or where in it something is.

An application's README and docs pages describe its features in the words its users, and
so its developers, ask in; the code doing the work says it in identifiers. For a question
about how something happens ("how does the app read a page's title, description and
preview image when I paste a link", "what happens when I save a url that I have already
bookmarked") or where something is ("where are the Fever and Google Reader compatible APIs
plugged in", "where is the default admin account created") the documents often came
first, several sections of one page at a time, while the answer is the code: a page says
what a feature does, not how or where it is done (linkding: a troubleshooting page on
wrong titles above the scraper; miniflux: the two APIs' READMEs above the route file;
BabyBuddy: the deployment and user guides above the management command).

So when a query asks how something works (``wiring_prior.asks_how_it_works``: "how does /
is / are X", "what happens"; not "how do I ...", which asks for instructions, and not
"why": a reason, which a README gives as often as the code), where something is ("where
...", not "where do I ..."), or names a part of the application that lives in code
(``path_prior``'s routes, models, migrations, jobs: "which url does docker use as a health
check" had three pages of the install docs around the URL conf; not its config part,
which a configuration page documents as well), a chunk of a prose document (``source_type
= docs``: a README, a docs page, a changelog) is multiplied by ``PROSE_WEIGHT`` in the one
prior sort (``priors.reweigh``), unless the query names documentation ("docs", "readme",
"guide", ...) or the chunk is found by the exact name the query uses. A corpus of
documents only (every candidate prose) keeps its order: every candidate gets the same
factor. A much better match still comes first. No configuration key: measured, not tuned
(docs/benchmarks.md).
"""

from __future__ import annotations

import re

from ragloom.retrieval.path_prior import parts_named
from ragloom.retrieval.priors import Factor
from ragloom.retrieval.wiring_prior import asks_how_it_works
from ragloom.types import SearchResult

#: How much the rank score of a prose document counts for a question about the code.
PROSE_WEIGHT = 0.7
_WHY = re.compile(r"\bwhy\b", re.IGNORECASE)
#: ``path_prior.PARTS`` held by code alone (a configuration page documents the config part).
_CODE_PARTS = frozenset({"routes", "models", "migrations", "jobs", "schedules", "seeding"})
#: "where ..." but not "where do / can I ...": instructions, as "how do I ...".
_WHERE = re.compile(r"\bwhere\b(?!\s+(?:do|can|could|should|would|may|must)\s+(?:i|we|you|one)\b)",
                    re.IGNORECASE)
_ABOUT_DOCS = re.compile(r"\b(?:docs?|documentation|documented|readme|guides?|manual|handbook|"
                         r"tutorials?|wiki|changelog|release\s+notes)\b", re.IGNORECASE)


def asks_about_the_code(query: str) -> bool:
    """Whether ``query`` asks how something works (not why), where something is, or names
    a part of the application that lives in code (``_CODE_PARTS``), and names no
    documentation."""
    if _ABOUT_DOCS.search(query) is not None:
        return False
    return _WHERE.search(query) is not None \
        or (asks_how_it_works(query) and _WHY.search(query) is None) \
        or any(part.name in _CODE_PARTS for part in parts_named(query))


def prior_for_prose(query: str) -> list[Factor]:
    """``PROSE_WEIGHT`` for a prose document's chunk not found by the exact name the query
    uses, else 1; none when the query does not ask about the code."""
    if not asks_about_the_code(query):
        return []

    def factor(result: SearchResult) -> float:
        prose = result.metadata.get("source_type") == "docs"
        return PROSE_WEIGHT if prose and "name" not in result.retrievers else 1.0
    return [factor]
