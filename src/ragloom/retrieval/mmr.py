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
