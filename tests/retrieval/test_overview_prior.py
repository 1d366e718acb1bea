"""A question asking what the whole project is goes to the README at its root, and the
relevance gate never empties it."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragloom.retrieval.overview_prior import asks_for_an_overview, is_root_readme, prior_for_overview
from ragloom.retrieval.priors import reweigh
from ragloom.types import SearchResult


@pytest.mark.parametrize(("query", "asks"), [
    ("what is this project and what is it built with", True),
    ("what is this project", True),
    ("What does this app do?", True),
    ("what is this repository for", True),
    ("what is the codebase about", True),
    ("what is it built with", True),
    ("what languages is it written in", True),
    ("tech stack of the application", True),
    ("what does the app do when a timer stops", False),  # one feature of the app
    ("how does this app send emails", False),
    ("what is this project's license", False),
    ("overview of the project's folder layout for new contributors", False),
    ("what is the capital of australia", False),
])
def test_asks_for_an_overview(query: str, asks: bool) -> None:
    assert asks_for_an_overview(query) is asks


def _result(doc_id: str, path: str, score: float) -> SearchResult:
    return SearchResult(doc_id, "", {"path": path}, 0.5, 0.5, rank_score=score)


def test_the_root_readme_comes_first_for_an_overview_question() -> None:
    results = [_result("build", "build.rs", 0.9), _result("icons", "assets/icons/README.md", 0.8),
               _result("readme", "README.md", 0.6)]
    assert [is_root_readme(r) for r in results] == [False, False, True]
    factors = prior_for_overview("what is this project", results)
    # 0.6 (the root README); 0.9 * 0.5 = 0.45; 0.8 * 0.5 = 0.4 (a subfolder's README)
    assert [r.id for r in reweigh(results, factors)] == ["readme", "build", "icons"]
    assert prior_for_overview("how is the project built", results) == []  # no overview
    assert prior_for_overview("what is this project", results[:2]) == []  # no root README


def test_the_gate_never_empties_an_overview_question(make_engine, project: Path) -> None:
    (project / "README.md").write_text(
        "# Quill\n\nThis project is a federated blogging engine built with Rust.\n")
    (project / "src").mkdir()
    (project / "src" / "feed.rs").write_text("pub fn render_feed(posts: &[Post]) -> Feed {\n}\n")
    engine = make_engine(relevance_gate=0.99)  # no hash-embedder cosine reaches it
    engine.index_directory()
    results = engine.search("what is this project and what is it built with", 5)
    assert [r.metadata["path"] for r in results][:1] == ["README.md"]
    assert engine.search("can you tell me a joke", 5) == []
