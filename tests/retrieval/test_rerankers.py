"""The reranker stage: it reads the best ``rerank_k`` fused candidates, reorders by its
scores, and a reranker returning the wrong number of scores is an error, not a shuffle."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from helpers import hash_config, write
from ragloom import RAGEngine
from ragloom.retrieval.rerankers import rerank, rerankers
from ragloom.types import SearchResult
from registries import restored


class Recording:
    def __init__(self) -> None:
        self.seen: list[list[str]] = []

    def score(self, query: str, results: Sequence[SearchResult]) -> list[float]:
        self.seen.append([r.id for r in results])
        return [float(len(r.text)) for r in results]  # longest text first


@pytest.fixture
def recording() -> Iterator[Recording]:
    reranker = Recording()
    with restored(rerankers):
        rerankers.register("recording")(lambda config: reranker)
        yield reranker


def test_the_reranker_reads_rerank_k_candidates_and_orders_by_its_scores(
        tmp_path: Path, recording: Recording) -> None:
    for index in range(8):
        write(tmp_path, f"f{index}.txt", "propeller blade " * (8 - index) + "propeller\n")
    with RAGEngine(hash_config(relevance_gate=0.0), tmp_path) as engine:
        engine.index_directory()
        fused = engine.search("propeller", top_k=8)
    config = hash_config(retrieval={"reranker": "recording", "rerank_k": 5}, relevance_gate=0.0)
    with RAGEngine(config, tmp_path) as engine:
        engine.index_directory()
        results = engine.search("propeller", top_k=3)
    assert recording.seen == [[r.id for r in fused[:5]]]  # the best five, in fused order
    longest = sorted(fused[:5], key=lambda r: -len(r.text))[:3]
    assert [r.id for r in results] == [r.id for r in longest]
    assert [r.rank_score for r in results] == [float(len(r.text)) for r in longest]


def test_a_wrong_number_of_scores_is_an_error() -> None:
    class Short:
        def score(self, query: str, results: Sequence[SearchResult]) -> list[float]:
            return [1.0]

    results = [SearchResult(str(i), "t", {}, 0.5, 0.5) for i in range(3)]
    with pytest.raises(ValueError, match="reranker Short returned 1 scores for 3 results"):
        rerank(Short(), "q", results)
