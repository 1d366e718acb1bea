"""Combining ranked lists from several retrievers into one ranking.

Reciprocal Rank Fusion (Cormack et al. 2009): score(d) = sum_r w_r / (k + rank_r(d)).
Score fusion: a convex combination of each retriever's scores min-max normalized over its
own candidate list (a candidate a retriever did not return gets 0 from it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

Ranking = Sequence[tuple[str, float]]  # (id, raw score), best first

FUSION_METHODS = ("rrf", "score")

#: Scores equal to this many decimals are ties: a store may compute the same cosine with a
#: last-bit difference depending on where the row sits (BLAS blocks, segment layout).
TIE_DECIMALS = 6


def tie_key(doc_id: str, score: float) -> tuple[float, str]:
    """The order of a ranking whatever the order chunks were written or found in: score
    (to TIE_DECIMALS), then the chunk id (deterministic: path and position)."""
    return -round(score, TIE_DECIMALS), doc_id


def reciprocal_rank_fusion(rankings: Mapping[str, Ranking], weights: Mapping[str, float],
                           k: int = 60) -> dict[str, float]:
    """Fused score of every id appearing in any ranking."""
    fused: dict[str, float] = {}
    for name, ranking in rankings.items():
        weight = weights.get(name, 1.0)
        for rank, (doc_id, _) in enumerate(ranking, start=1):
            fused[doc_id] = fused.get(doc_id, 0.0) + weight / (k + rank)
    return fused


def score_fusion(rankings: Mapping[str, Ranking], weights: Mapping[str, float]) -> dict[str, float]:
    """Weighted mean of min-max-normalized scores (weights normalized to sum to 1)."""
    total = sum(weights.get(name, 1.0) for name in rankings) or 1.0
    fused: dict[str, float] = {}
    for name, ranking in rankings.items():
        if not ranking:
            continue
        weight = weights.get(name, 1.0) / total
        scores = [score for _, score in ranking]
        low, high = min(scores), max(scores)
        span = high - low
        for doc_id, score in ranking:
            normalized = (score - low) / span if span > 0 else 1.0
            fused[doc_id] = fused.get(doc_id, 0.0) + weight * normalized
    return fused


def fuse(method: str, rankings: Mapping[str, Ranking], weights: Mapping[str, float],
         rrf_k: int = 60) -> list[tuple[str, float]]:
    """Fused (id, score) pairs, best first; ties (to TIE_DECIMALS) broken by id."""
    if method == "rrf":
        fused = reciprocal_rank_fusion(rankings, weights, rrf_k)
    elif method == "score":
        fused = score_fusion(rankings, weights)
    else:
        raise ValueError(f"unknown fusion {method!r}; valid: {', '.join(FUSION_METHODS)}")
    return sorted(fused.items(), key=lambda item: tie_key(*item))
