"""Tests rank below comparable application code unless the question is about tests.

A soft prior: the rank score of a chunk whose ``source_type`` is ``test`` is multiplied by
``retrieval.test_weight`` (< 1) and the candidates re-sorted, so a test still comes first
when it is much the better match. A query that mentions tests (``test``, ``spec``,
``fixture``, ``assert``, ``mock``, a test framework, a name like ``TranscoderTest``, or a
snapshot of something rendered, not the application's own snapshots) keeps every score.
A chunk found by the exact name the query uses is never demoted.
``retrieval.include_tests = false`` leaves tests out altogether (a filter).

Model factories (``FACTORIES``: Laravel's ``database/factories/``, factory_boy's
``factories.py``) build fake rows for tests and demo seeders; they name every field of a
model and its invented values, so they match questions about the model's behaviour ("how
are invoice numbers built": ``InvoiceFactory``'s ``'invoice_number' => 'INV-'...``) while
answering none. They weigh as tests do, unless the query is about tests or names them or
the fake data they make (``FACTORY_WORDS``).
"""

from __future__ import annotations

import re
from typing import Any

from ragloom.filters import Filters
from ragloom.retrieval.priors import Factor, reweigh
from ragloom.types import SearchResult

#: Words (or identifier parts) that make a query about tests.
TEST_WORDS = frozenset({
    "test", "tests", "testing", "tested", "testcase", "unittest", "spec", "specs", "fixture",
    "fixtures", "assert", "asserts", "assertion", "assertions", "mock", "mocks", "mocked",
    "mocking", "stub", "stubs", "e2e", "pytest", "phpunit", "jest", "vitest", "mocha", "rspec",
    "cypress", "playwright", "coverage", "tomatchsnapshot", "tomatchinlinesnapshot",
})
_WORDS = re.compile(r"[A-Za-z0-9]+")
#: Paths of model factories (see the module docstring).
FACTORIES = re.compile(r"(^|/)database/factories/|(^|/)factories\.py$")
#: Words of a query about factories or the fake data they make.
FACTORY_WORDS = re.compile(r"\b(factory|factories|fake|faker|dummy|demo|seed\w*|sample\s+data)\b",
                           re.IGNORECASE)
_PARTS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
#: A snapshot is a test's only beside what it renders ("snapshot of the queue screen"):
#: alone it is as often the application's own (an HTML snapshot of a bookmarked page, a
#: database or volume snapshot), and taking it for a test word let tests into the top 5.
_RENDERED = r"(?:screens?|components?|render\w*|markup|ui|views?|widgets?)"
_SNAPSHOT_TEST = re.compile(rf"\bsnapshots?\b[^?.!]{{0,40}}\b{_RENDERED}\b|"
                            rf"\b{_RENDERED}\b[^?.!]{{0,40}}\bsnapshots?\b", re.IGNORECASE)


def asks_about_tests(query: str) -> bool:
    """Whether a word of ``query`` (``e2e``), or a part of an identifier in it
    (``TranscoderTest``, ``test_parse``), is a TEST_WORD, or it asks for a snapshot of
    something rendered (``_SNAPSHOT_TEST``)."""
    words = _WORDS.findall(query)
    return any(word.lower() in TEST_WORDS for word in words + _PARTS.findall(query)) \
        or _SNAPSHOT_TEST.search(query) is not None


def demote_tests(results: list[SearchResult], weight: float) -> list[SearchResult]:
    """``results`` re-sorted with the rank score of test chunks times ``weight`` (a
    negative score divided by it, so it still goes down); ``rank_score`` keeps the value
    the ranking gave (the order is what changes)."""
    return reweigh(results, [prior_for_tests(weight)])


def prior_for_tests(weight: float) -> Factor:
    """The test prior as a factor (``priors.reweigh``): ``weight`` for a test chunk not
    found by the exact name the query uses, else 1."""
    def factor(result: SearchResult) -> float:
        return weight if _is_test(result) and "name" not in result.retrievers else 1.0
    return factor


def prior_for_factories(query: str, weight: float) -> list[Factor]:
    """The factor weighing a model factory's chunk (``FACTORIES``) by ``weight`` as a test's,
    unless found by the exact name the query uses; none when the query names factories or
    fake data (``FACTORY_WORDS``). The caller leaves it out for a query about tests."""
    if FACTORY_WORDS.search(query):
        return []

    def factor(result: SearchResult) -> float:
        path = str(result.metadata.get("path") or "").replace("\\", "/")
        return weight if FACTORIES.search(path) and "name" not in result.retrievers else 1.0
    return [factor]


def without_tests(filters: Filters | None) -> dict[str, Any]:
    """``filters`` and ``source_type != test``."""
    no_tests = {"source_type": {"$ne": "test"}}
    return {"$and": [dict(filters), no_tests]} if filters else no_tests


def _is_test(result: SearchResult) -> bool:
    return result.metadata.get("source_type") == "test"
