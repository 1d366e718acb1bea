"""Maximal Marginal Relevance (Carbonell & Goldstein 1998): re-rank for diversity.

Each step picks the candidate maximizing
``lambda * relevance - (1 - lambda) * max cosine to the already picked``.
"""

from __future__ import annotations

import numpy as np

from ragloom.products import rows_times


def mmr_order(relevance: np.ndarray, vectors: np.ndarray, k: int, lambda_: float = 0.5) -> list[int]:
    """Indices of ``k`` candidates in MMR order; ``vectors`` are unit rows."""
    count = len(relevance)
    if count == 0 or k <= 0:
        return []
    similarity = rows_times(vectors, vectors.T)
    chosen: list[int] = []
    redundancy = np.full(count, -np.inf)
    available = np.ones(count, dtype=bool)
    for _ in range(min(k, count)):
        penalty = np.where(np.isfinite(redundancy), redundancy, 0.0)
        objective = lambda_ * relevance - (1 - lambda_) * penalty
        objective[~available] = -np.inf
        pick = int(np.argmax(objective))
        chosen.append(pick)
        available[pick] = False
        redundancy = np.maximum(redundancy, similarity[pick])
    return chosen


def mmr_pool_size(top_k: int) -> int:
    """How many of the best candidates MMR may choose from: enough for diversity, few
    enough that it cannot reach far down the ranking (4x top_k, at least 20)."""
    return max(20, 4 * top_k)


def min_max(scores: list[float]) -> np.ndarray:
    """Scores rescaled to [0, 1] so MMR weighs relevance on the same scale as similarity."""
    values = np.asarray(scores, dtype=np.float64)
    span = values.max() - values.min() if len(values) else 0.0
    return (values - values.min()) / span if span > 0 else np.ones_like(values)
