"""Top-k selection against a reference: a stable sort of the whole array."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from ragloom.top_k import largest_indices, top_k_indices


def reference(scores: np.ndarray, k: int) -> np.ndarray:
    """Best first, equal scores in index order."""
    return np.argsort(-scores, kind="stable")[:k]


@functools.cache
def reference_of(name: str) -> np.ndarray:
    return reference(ARRAYS[name], len(ARRAYS[name]))


def _sample_on_top() -> np.ndarray:
    """Every 16th score (the ones sampled) far above the rest: the sampled bound keeps too
    few scores and the selection falls back to the whole array."""
    scores = np.random.default_rng(3).random(100_000)
    scores[::16] += 10.0
    return scores


ARRAYS = {
    "random floats": np.random.default_rng(1).random(50_000),
    "few distinct integers": np.random.default_rng(2).integers(-1152, 1, 200_000).astype(np.int32),
    "all equal": np.zeros(40_000),
    "sorted ascending": np.arange(100_000, dtype=np.float64),
    "sorted descending": np.arange(100_000, 0, -1, dtype=np.float64),
    "periodic with the sampling stride": np.tile(np.arange(16, dtype=np.float64), 5_000),
    "sampled scores on top": _sample_on_top(),
    "small": np.array([3.0, 1.0, 3.0, 2.0, -np.inf, 3.0]),
}


@pytest.mark.parametrize("name", list(ARRAYS))
@pytest.mark.parametrize("k", [1, 2, 10, 99, 1_000, 3_999])
def test_top_k_indices_equal_a_stable_sort(name: str, k: int) -> None:
    assert top_k_indices(ARRAYS[name], k).tolist() == reference_of(name)[:k].tolist()


@pytest.mark.parametrize("name", list(ARRAYS))
def test_largest_indices_are_the_same_set_in_index_order(name: str) -> None:
    k = min(500, len(ARRAYS[name]) - 1)
    assert largest_indices(ARRAYS[name], k).tolist() == sorted(reference_of(name)[:k].tolist())


def test_ties_at_the_cut_go_to_the_lowest_indices() -> None:
    scores = np.array([5.0, 1.0, 1.0, 1.0, 7.0, 1.0])
    assert top_k_indices(scores, 3).tolist() == [4, 0, 1]
    assert largest_indices(scores, 4).tolist() == [0, 1, 2, 4]


def test_k_of_zero_or_past_the_end() -> None:
    scores = np.array([0.5, 0.9, 0.1])
    assert top_k_indices(scores, 0).tolist() == []
    assert top_k_indices(scores, 10).tolist() == [1, 0, 2]
    assert largest_indices(np.zeros(0), 3).tolist() == []
