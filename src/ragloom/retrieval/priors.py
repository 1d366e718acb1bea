"""Priors applied in one sort: every prior (tests, import blocks) gives each candidate a
factor, and the candidates are re-sorted once by rank score times the product of their
factors. Applying them one after another would not compose: each sort starts again from
the rank score, so the last prior would undo the order every earlier one made (a test
demoted by the test prior came back to the top when the import prior re-sorted).

A factor of 0 puts a candidate after every candidate with a positive factor (still in rank
order among themselves, still returned when nothing else is); a negative rank score is
divided by the factor instead, so a factor below 1 always moves a candidate down. Values
equal to ``fusion.TIE_DECIMALS`` decimals are ties and keep the ranking's order (which is
deterministic), so a last-bit difference between two builds of one index (``fusion``)
never reorders them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ragloom.retrieval.fusion import TIE_DECIMALS
from ragloom.types import SearchResult

#: A prior: how much a candidate's rank score counts (1 = as it is, 0 = after the rest).
Factor = Callable[[SearchResult], float]


def reweigh(results: Sequence[SearchResult], factors: Sequence[Factor]) -> list[SearchResult]:
    """``results`` re-sorted (stable) by rank score times the product of ``factors``;
    ``rank_score`` keeps the value the ranking gave (the order is what changes)."""
    weights = [_product(result, factors) for result in results]
    if all(weight == 1.0 for weight in weights):
        return list(results)

    def key(position: int) -> tuple[bool, float]:
        weight = weights[position]
        value = _value(results[position])
        if weight <= 0.0:
            return False, round(value, TIE_DECIMALS)
        return True, round(value * weight if value >= 0 else value / weight, TIE_DECIMALS)

    return [results[i] for i in sorted(range(len(results)), key=key, reverse=True)]


def _product(result: SearchResult, factors: Sequence[Factor]) -> float:
    weight = 1.0
    for factor in factors:
        weight *= max(0.0, min(1.0, factor(result)))
    return weight


def _value(result: SearchResult) -> float:
    return float(result.rank_score if result.rank_score is not None else result.score)
