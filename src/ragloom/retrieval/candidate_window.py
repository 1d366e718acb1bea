"""The ranking the priors reorder: each retriever's hits ranked (the one retriever's order,
or in hybrid mode the fused one with the chunks defining a name the query uses first), the
first ``window`` of them (the priors' window, the same whatever ``top_k`` is), then the
other candidates of a larger pool in the ranking of all hits."""

from __future__ import annotations

from ragloom.config.tables import RetrievalConfig
from ragloom.retrieval.fusion import fuse
from ragloom.retrieval.retrievers import Hit, Ranking, ranking
from ragloom.retrieval.search_mode import SearchMode


def window_first(mode: SearchMode, hits: dict[str, list[Hit]], candidates: dict[str, int],
                 defining: list[str], window: int, settings: RetrievalConfig) -> tuple[Ranking, set[str]]:
    """The ranking of each retriever's first ``window`` hits (cut to ``window``), then the
    other candidates of a larger pool in the ranking of all hits; and the ids of the first
    part (the priors' window)."""
    ranked = rank(mode, {name: found[:window] for name, found in hits.items()}, candidates,
                  defining, settings)
    chosen = {doc_id for doc_id, _ in ranked[:window]}
    if all(len(found) <= window for found in hits.values()):
        return ranked, chosen
    rest = rank(mode, hits, candidates, defining, settings)
    return ranked[:window] + [pair for pair in rest if pair[0] not in chosen], chosen


def rank(mode: SearchMode, hits: dict[str, list[Hit]], candidates: dict[str, int],
         defining: list[str], settings: RetrievalConfig) -> Ranking:
    """The one retriever's ranking (dense, or BM25 alone), or in hybrid mode the fused one
    (its length counted in ``candidates["fused"]``) with the chunks ``defining`` a name the
    query uses first."""
    if mode != "hybrid":
        return ranking(hits[mode.value])
    weights = {"dense": settings.dense_weight, "sparse": settings.sparse_weight}
    ranked = fuse(settings.fusion, {name: ranking(found) for name, found in hits.items()},
                  weights, settings.rrf_k)
    candidates["fused"] = len(ranked)
    return definitions_first(ranked, defining)


def definitions_first(ranked: Ranking, defining: list[str]) -> Ranking:
    """Chunks defining a name the query uses go first (they tie with the best fused value,
    so rank_score stays monotonic); the rest keep their fused order."""
    if not defining:
        return ranked
    top = ranked[0][1] if ranked else 1.0
    chosen = set(defining)
    return [(doc_id, top) for doc_id in defining] + [pair for pair in ranked if pair[0] not in chosen]
