"""Search through the engine: order, top_k, filters, min_score."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import write


@pytest.fixture
def engine(make_engine, project: Path):
    write(project, "fruit.txt", "apples pears bananas and other fruit\n")
    write(project, "space.md", "# Rockets\nrockets launch satellites into orbit\n")
    write(project, "code/parser.py", "def parse_tokens(tokens):\n    return tree(tokens)\n")
    write(project, "code/lexer.py", "def lex(text):\n    return tokens(text)\n")
    engine = make_engine()
    engine.index_directory()
    return engine


def test_best_match_first_and_scores_descend(engine) -> None:
    results = engine.search("rockets orbit satellites", top_k=4)
    assert results[0].metadata["path"] == "space.md"
    scores = [r.score for r in results]
    assert scores == sorted(scores, reverse=True)
    assert all(r.distance == pytest.approx(1 - r.score) for r in results)
    assert results[0].retrievers["dense"].rank == 1


def test_search_order_is_deterministic(engine) -> None:
    first = [(r.id, r.score) for r in engine.search("tokens", top_k=4)]
    second = [(r.id, r.score) for r in engine.search("tokens", top_k=4)]
    assert first == second
    assert {r.metadata["path"] for r in engine.search("tokens", top_k=2)} == {
        "code/parser.py", "code/lexer.py"}


def test_top_k_defaults_to_config(engine) -> None:
    assert len(engine.search("fruit")) == 4  # config top_k 5, only 4 chunks
    assert len(engine.search("fruit", top_k=1)) == 1
    with pytest.raises(ValueError, match="top_k must be at least 1"):
        engine.search("fruit", top_k=0)


def test_filters(engine) -> None:
    results = engine.search("tokens", filters={"path": "code/*.py"})
    assert {r.metadata["path"] for r in results} == {"code/parser.py", "code/lexer.py"}
    assert [r.metadata["path"] for r in engine.search("rockets", filters={"language": "markdown"})] == ["space.md"]
    with pytest.raises(ValueError, match="unknown operator"):
        engine.search("x", filters={"path": {"$like": "a"}})


def test_min_score(engine) -> None:
    everything = engine.search("rockets orbit", top_k=4)
    threshold = (everything[0].score + everything[1].score) / 2
    kept = engine.search("rockets orbit", top_k=4, min_score=threshold)
    assert [r.id for r in kept] == [everything[0].id]
    assert engine.search("rockets orbit", min_score=1.01) == []


def test_blank_query_returns_nothing(engine) -> None:
    assert engine.search("   ") == []
