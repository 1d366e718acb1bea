"""Licence texts (LICENSE, COPYING, NOTICE) rank below comparable documents unless the
question is about licensing."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import first_path_per_weight
from ragloom.retrieval import legal_prior
from ragloom.retrieval.legal_prior import asks_about_licensing, is_legal_text, prior_for_licences
from ragloom.retrieval.priors import reweigh
from ragloom.types import SearchResult


def _result(doc_id: str, path: str, source_type: str, score: float,
            by_name: bool = False) -> SearchResult:
    retrievers = {"name": {"rank": 1}} if by_name else {}
    return SearchResult(doc_id, "", {"path": path, "source_type": source_type}, 0.5, 0.5,
                        retrievers, rank_score=score)


@pytest.mark.parametrize(("query", "about"), [
    ("under which licence is the project released", True),
    ("can I use this under the MIT license", True),
    ("who holds the copyright", True),
    ("is it GPL compatible", True),
    ("overview of the project's folder layout for new contributors", False),
    ("how are licenses of uploaded media stored", True),  # the word decides, not the sense
    ("where is the submit button", False),  # whole words only ("mit" inside "submit")
])
def test_asks_about_licensing(query: str, about: bool) -> None:
    assert asks_about_licensing(query) is about


@pytest.mark.parametrize(("path", "source_type", "legal"), [
    ("LICENSE", "docs", True), ("LICENSE.md", "docs", True), ("LICENSE-APACHE-2.0", "docs", True),
    ("crates/kitsune-db/LICENSE-AGPL-3.0", "docs", True), ("COPYING.LESSER", "text", True),
    ("NOTICE", "docs", True), ("licence.txt", "docs", True), ("UNLICENSE", "docs", True),
    ("src/license.rs", "code", False),  # a program checking licences
    ("app/Models/License.php", "model", False), ("docs/licensing.md", "docs", False),
    ("LICENSES/README.md", "docs", False),
])
def test_licence_texts_by_name_and_type(path: str, source_type: str, legal: bool) -> None:
    assert is_legal_text(path, source_type) is legal


def test_licence_texts_go_below_comparable_documents() -> None:
    results = [_result("clause", "LICENSE-AGPL-3.0", "docs", 0.9),
               _result("guide", "CONTRIBUTING.md", "docs", 0.6),
               _result("named", "LICENSE", "docs", 0.8, by_name=True),
               _result("checker", "src/license.rs", "code", 0.5)]
    factors = prior_for_licences("overview of the folder layout for new contributors")
    # 0.8 (found by name, never demoted); 0.6; 0.5; 0.9 * 0.5 = 0.45
    assert [r.id for r in reweigh(results, factors)] == ["named", "guide", "checker", "clause"]
    assert prior_for_licences("which license does the project use") == []


def test_engine_answers_a_contributor_question_with_the_guide_before_the_licence(
        make_engine, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = {"LICENSE": "The contributors of a work grant every recipient the right to modify the "
                        "source of the project and its folder layout.\n",
             "CONTRIBUTING.md": "# Contributing\n\nThe project folder layout for new contributors:\n"
                                "`src/` holds the server.\n"}
    assert first_path_per_weight(make_engine, project, files, monkeypatch, legal_prior, "LEGAL_WEIGHT",
                                 "project folder layout contributors source", (1.0, 0.5)) == [
        "LICENSE", "CONTRIBUTING.md"]
