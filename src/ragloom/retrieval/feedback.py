"""Pseudo-relevance feedback for BM25 (RM3-style query expansion).

The first-pass top documents vote for terms by their share of each document weighted by
the document's normalized score; the best terms not already in the query are added with a
total weight of ``weight`` relative to the original query terms.
"""

from __future__ import annotations

import heapq
import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Protocol


class TermStatistics(Protocol):
    """What feedback reads of an index: ``BM25Index``, or Postgres's ``FeedbackStats``."""

    def __len__(self) -> int: ...

    def term_frequencies(self, doc_id: str) -> dict[str, int]: ...

    def document_frequency(self, term: str) -> int: ...


def expand_query(index: TermStatistics, query: Sequence[str], first_pass: Sequence[tuple[str, float]],
                 docs: int = 10, terms: int = 10, weight: float = 0.5) -> dict[str, float]:
    """Query term weights: original terms (repeats counted) plus feedback terms."""
    original = Counter(query)
    weights: dict[str, float] = {term: float(count) for term, count in original.items()}
    top = [item for item in first_pass[:docs] if item[1] > 0]
    if not top or terms <= 0 or weight <= 0:
        return weights
    total_score = sum(score for _, score in top)
    corpus_size = max(len(index), 1)
    votes: defaultdict[str, float] = defaultdict(float)
    for doc_id, score in top:
        frequencies = index.term_frequencies(doc_id)
        length = sum(frequencies.values()) or 1
        for term, tf in frequencies.items():
            if term in original:
                continue
            rarity = math.log(1 + corpus_size / max(index.document_frequency(term), 1))
            votes[term] += (score / total_score) * (tf / length) * rarity
    best = heapq.nlargest(terms, votes.items(), key=lambda item: item[1])  # ties: first seen
    mass = sum(vote for _, vote in best)
    if mass <= 0:
        return weights
    budget = weight * sum(original.values())
    for term, vote in best:
        weights[term] = budget * vote / mass
    return weights
