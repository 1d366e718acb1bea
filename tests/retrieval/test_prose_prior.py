"""Prose documents rank below the code for a question asking how something works or where
something is, unless it asks why or names documentation."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import first_path_per_weight
from ragloom.config import RAGConfig
from ragloom.retrieval import prose_prior
from ragloom.retrieval.priors import reweigh
from ragloom.retrieval.prose_prior import asks_about_the_code, prior_for_prose
from ragloom.retrieval.query_priors import query_priors
from ragloom.types import SearchResult


def _result(doc_id: str, path: str, source_type: str, score: float,
            by_name: bool = False) -> SearchResult:
    retrievers = {"name": {"rank": 1}} if by_name else {}
    return SearchResult(doc_id, "", {"path": path, "source_type": source_type}, 0.5, 0.5,
                        retrievers, rank_score=score)


@pytest.mark.parametrize(("query", "asks"), [
    ("how does the app read a page's title when I paste a link", True),
    ("what happens when I save a url that I have already bookmarked", True),
    ("how is the background task queue configured", True),
    ("where are the REST API endpoints registered", True),
    ("Where does a new user account get its profile", True),
    ("why does the web vault need HTTPS", False),  # a reason: a README gives it too
    ("how does sharing work and why is it off by default", False),
    ("how do I make a full backup of a docker install", False),  # instructions
    ("how do I set up a local development environment", False),
    ("where can I read the API documentation", False),  # names documentation
    ("where do I find my API token", False),  # instructions, as "how do I"
    ("where can we change the upload limit", False),
    ("where is the install guide", False),
    ("which url does docker use as a health check", True),  # names a part held by code
    ("which command switches sqlite to write-ahead logging", True),
    ("migration that adds notifications", True),
    ("which settings turn on login through OpenID Connect", False),  # config: pages document it
    ("which keys move between bookmarks in the list", False),
    ("nowhere to be found", False),  # whole words only
])
def test_asks_about_the_code(query: str, asks: bool) -> None:
    assert asks_about_the_code(query) is asks


def test_documents_go_below_the_code_for_a_question_about_the_code() -> None:
    results = [_result("page", "docs/troubleshooting.md", "docs", 0.9),
               _result("readme", "README.md", "docs", 0.85, by_name=True),
               _result("code", "bookmarks/services/website_loader.py", "code", 0.8),
               _result("notes", "CHANGELOG.md", "docs", 0.75)]
    factors = prior_for_prose("how does the app read a page's title")
    # 0.85 (found by name, never demoted); 0.8; 0.9 * 0.7 = 0.63; 0.75 * 0.7 = 0.525
    assert [r.id for r in reweigh(results, factors)] == ["readme", "code", "page", "notes"]
    results[0].rank_score = 1.3  # a much better match still comes first: 0.91
    assert [r.id for r in reweigh(results, factors)] == ["page", "readme", "code", "notes"]
    assert prior_for_prose("how do I change a page's title") == []


def test_a_corpus_of_documents_keeps_its_order() -> None:
    results = [_result(str(i), f"docs/{i}.md", "docs", score) for i, score in enumerate((0.9, 0.7, 0.8))]
    assert [r.id for r in reweigh(results, prior_for_prose("where is the wing flutter data"))] == [
        "0", "2", "1"]


def test_query_priors_bring_the_prose_prior() -> None:
    results = [_result("page", "docs/api.md", "docs", 0.9), _result("urls", "api/urls.py", "code", 0.8)]
    priors = query_priors("where are the REST API endpoints registered", RAGConfig().retrieval)
    assert [r.id for r in reweigh(results, priors)] == ["urls", "page"]


def test_engine_answers_a_where_question_with_the_code_not_the_page(
        make_engine, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = {"docs/health.md": "# Health check\n\nThe health check url answers whether the "
                               "server is up.\n",
             "app/health.py": "def health(request):\n    # answers the health check url: is "
                              "the server up and its database healthy\n    return ok(database_up())\n"}
    assert first_path_per_weight(make_engine, project, files, monkeypatch, prose_prior, "PROSE_WEIGHT",
                                 "where is the health check url answered", (1.0, 0.7)) == [
        "docs/health.md", "app/health.py"]
