"""The k highest scores of a large array, fast and deterministic.

``np.argpartition`` over a few hundred thousand scores costs milliseconds per search and
picks arbitrarily among scores tied at the cut. Here a strided sample bounds the k-th
highest score from below, one comparison keeps the few scores above that bound, and the
exact cut is taken among those; ties at the cut go to the lowest indices."""

from __future__ import annotations

import numpy as np

#: Below this many scores a plain partition is as fast as sampling.
_SAMPLE_FROM = 16_384
#: Every ``_STRIDE``-th score is sampled.
_STRIDE = 16
#: Sampling pays while k is at most this share of the scores (1/8).
_LARGEST_SHARE = 8
#: The sample's bound aims this many times past the k-th score, so that it rarely lands
#: above it (the sample's rank of the cut varies by about its square root).
_MARGIN = 1.5


def largest_indices(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` highest scores in index order; among scores tied at the cut,
    the lowest indices (scores hold no NaN: the stores refuse NaN vectors)."""
    count = len(scores)
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    if k >= count:
        return np.arange(count, dtype=np.int64)
    candidates = _above_sampled_bound(scores, k)
    if candidates is None:
        candidates = np.arange(count, dtype=np.int64)
    values = scores[candidates]
    cut = np.partition(values, len(values) - k)[len(values) - k]
    above = candidates[values > cut]
    tied = candidates[values == cut][:k - len(above)]
    return np.sort(np.concatenate((above, tied)))


def top_k_indices(scores: np.ndarray, top_k: int) -> np.ndarray:
    """Indices of the ``top_k`` highest scores, best first; equal scores in index order."""
    chosen = largest_indices(scores, top_k)
    return chosen[np.lexsort((chosen, -scores[chosen]))]


def _above_sampled_bound(scores: np.ndarray, k: int) -> np.ndarray | None:
    """Indices of the scores at or above a bound taken from a sample, or None when no
    sample pays (small arrays, k a large share of them) or the bound kept fewer than k."""
    count = len(scores)
    if count < _SAMPLE_FROM or k * _LARGEST_SHARE > count:
        return None
    sample = scores[::_STRIDE]
    rank = min(len(sample) - 1, int(k / _STRIDE * _MARGIN) + 8)
    bound = np.partition(sample, len(sample) - 1 - rank)[len(sample) - 1 - rank]
    candidates = np.flatnonzero(scores >= bound)
    return candidates if len(candidates) >= k else None
