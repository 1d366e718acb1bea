"""The relevance gate: a query unrelated to the corpus ("hi", "tell me a joke") gets no
results, a real question always some.

A search passes when a result defines a name the query uses, when its best cosine reaches
the gate, or on lexical evidence: a result holding a third of the query's words or more
(at least LEXICAL_COVERAGE of its distinct BM25 terms, and at least two of them, in its
path, symbol or text) while the best cosine is within LEXICAL_MARGIN of the gate. The
cosine alone emptied real questions a little under the gate ("where are the keyboard
shortcuts defined": 0.348 under 0.35) while the words of the answer were all there; small
talk matches one common word at best. A third, not a half: a developer's question carries
words its answer never says ("how many failed logins lock a user out and for how long":
two of six held, 0.29; "how can I allow new users to sign up on a self-hosted instance":
three of seven, 0.35 less a hair), while no off-topic query passed at a third that did not
at half, on five application and three library dev sets (docs/benchmarks.md). Results with no vector yet
(progressive indexing) pass on words alone, so they need UNSCORED_COVERAGE, a half.
The gate judges the best ``GATE_WINDOW`` results, whatever ``top_k`` is, and never empties a
question asking what the project is (``overview_prior``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ragloom.retrieval.overview_prior import asks_for_an_overview
from ragloom.types import SearchResult

#: The relevance gate judges this many of the best results, whatever ``top_k`` is (the
#: default ``top_k``): a query is related to the corpus or not, however many results it asks.
GATE_WINDOW = 5

#: Share of the query's distinct terms a result must hold for lexical evidence.
LEXICAL_COVERAGE = 1 / 3
#: The share for results with no vector yet, whose words alone pass a query.
UNSCORED_COVERAGE = 0.5
#: Lexical evidence counts only down to this cosine below the gate.
LEXICAL_MARGIN = 0.1


def lexical_evidence(query_terms: Sequence[str], results: Sequence[SearchResult],
                     tokenizer: Callable[[str], list[str]]) -> float:
    """The largest share of the query's distinct terms one result holds (in its path,
    symbol and text); 0 when no result holds two of them."""
    wanted = set(query_terms)
    best = 0.0
    for result in results:
        meta = result.metadata
        words = f"{meta.get('path', '')} {meta.get('symbols') or meta.get('symbol') or ''} {result.text}"
        held = wanted.intersection(tokenizer(words))
        if len(held) >= 2:
            best = max(best, len(held) / len(wanted))
    return best


def passes_gate(results: Sequence[SearchResult], gate: float, query_terms: Sequence[str],
                tokenizer: Callable[[str], list[str]],
                unscored: Sequence[SearchResult] = ()) -> bool:
    """Whether a query with these results is taken as related to the corpus (see the
    module docstring). ``unscored`` are those of them with no vector yet (progressive
    indexing): their cosine is unknown, so their words alone can pass the query."""
    if not results or any("name" in r.retrievers for r in results):
        return True
    if unscored and lexical_evidence(query_terms, unscored, tokenizer) >= UNSCORED_COVERAGE:
        return True
    best = max(r.score for r in results)
    if best >= gate:
        return True
    return (best >= gate - LEXICAL_MARGIN
            and lexical_evidence(query_terms, results, tokenizer) >= LEXICAL_COVERAGE)


def relevant(query: str, results: Sequence[SearchResult], gate: float | None,
             tokenizer: Callable[[str], list[str]], unembedded: frozenset[str]) -> bool:
    """Whether ``query`` keeps its ``results``: no gate, a question asking what the project
    is, or its best ``GATE_WINDOW`` results passing ``gate`` (``passes_gate``; those in
    ``unembedded``, with no vector yet, on their words)."""
    if gate is None or asks_for_an_overview(query):
        return True
    judged = results[:GATE_WINDOW]
    unscored = [r for r in judged if r.id in unembedded]
    return passes_gate(judged, gate, tokenizer(query), tokenizer, unscored)
