"""Fusion and MMR arithmetic."""

from __future__ import annotations

import numpy as np
import pytest

from ragloom.retrieval.fusion import fuse, reciprocal_rank_fusion, score_fusion
from ragloom.retrieval.mmr import mmr_order


def test_rrf_exact_scores_and_weights() -> None:
    rankings = {"dense": [("a", 0.9), ("b", 0.8)], "sparse": [("b", 12.0), ("c", 3.0)]}
    fused = reciprocal_rank_fusion(rankings, {"dense": 1.0, "sparse": 2.0}, k=60)
    assert fused == pytest.approx({"a": 1 / 61, "b": 1 / 62 + 2 / 61, "c": 2 / 62})
    assert [doc for doc, _ in fuse("rrf", rankings, {"dense": 1, "sparse": 2})] == ["b", "c", "a"]


def test_score_fusion_min_max_normalizes_each_list() -> None:
    rankings = {"dense": [("a", 0.9), ("b", 0.5)], "sparse": [("b", 10.0), ("c", 2.0)]}
    fused = score_fusion(rankings, {"dense": 3.0, "sparse": 1.0})
    assert fused == pytest.approx({"a": 0.75, "b": 0.25, "c": 0.0})


def test_fuse_rejects_unknown_method_and_breaks_ties_by_id() -> None:
    with pytest.raises(ValueError, match="unknown fusion 'max'"):
        fuse("max", {}, {})
    tied = fuse("rrf", {"dense": [("b", 1.0)], "sparse": [("a", 1.0)]}, {})
    assert [doc for doc, _ in tied] == ["a", "b"]


def test_mmr_skips_near_duplicates() -> None:
    vectors = np.array([[1.0, 0.0], [1.0, 0.0], [0.6, 0.8]])
    relevance = np.array([0.9, 0.89, 0.7])
    assert mmr_order(relevance, vectors, 2, 0.5) == [0, 2]
    assert mmr_order(relevance, vectors, 2, 1.0) == [0, 1]
    assert mmr_order(relevance, vectors, 0, 0.5) == []
