"""Tests rank below comparable application code unless the question is about tests.

A soft prior: the rank score of a chunk whose ``source_type`` is ``test`` is multiplied by
``retrieval.test_weight`` (< 1) and the candidates re-sorted, so a test still comes first
when it is much the better match. A query that mentions tests (``test``, ``spec``,
``fixture``, ``assert``, ``mock``, a test framework, or a name like ``TranscoderTest``)
keeps every score. A chunk found by the exact name the query uses is never demoted.
``retrieval.include_tests = false`` leaves tests out altogether (a filter).
"""

from __future__ import annotations

import re
from typing import Any

from ragloom.filters import Filters
from ragloom.types import SearchResult

#: Words (or identifier parts) that make a query about tests.
TEST_WORDS = frozenset({
    "test", "tests", "testing", "tested", "testcase", "unittest", "spec", "specs", "fixture",
    "fixtures", "assert", "asserts", "assertion", "assertions", "mock", "mocks", "mocked",
    "mocking", "stub", "stubs", "snapshot", "snapshots", "e2e", "pytest", "phpunit", "jest",
    "vitest", "mocha", "rspec", "cypress", "playwright", "coverage",
})
_WORDS = re.compile(r"[A-Za-z0-9]+")
_PARTS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")


def asks_about_tests(query: str) -> bool:
    """Whether a word of ``query`` (``e2e``), or a part of an identifier in it
    (``TranscoderTest``, ``test_parse``), is a TEST_WORD."""
    words = _WORDS.findall(query)
    return any(word.lower() in TEST_WORDS for word in words + _PARTS.findall(query))


def demote_tests(results: list[SearchResult], weight: float) -> list[SearchResult]:
    """``results`` re-sorted with the rank score of test chunks times ``weight`` (a
    negative score divided by it, so it still goes down); ``rank_score`` keeps the value
    the ranking gave (the order is what changes)."""
    if weight >= 1.0 or not any(_is_test(r) for r in results):
        return results

    def key(result: SearchResult) -> float:
        value = float(result.rank_score if result.rank_score is not None else result.score)
        if not _is_test(result) or "name" in result.retrievers:
            return value
        return value * weight if value >= 0 else value / weight

    return sorted(results, key=key, reverse=True)


def without_tests(filters: Filters | None) -> dict[str, Any]:
    """``filters`` and ``source_type != test``."""
    no_tests = {"source_type": {"$ne": "test"}}
    return {"$and": [dict(filters), no_tests]} if filters else no_tests


def _is_test(result: SearchResult) -> bool:
    return result.metadata.get("source_type") == "test"
