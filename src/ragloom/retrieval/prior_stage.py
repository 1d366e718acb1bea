"""The priors' stage of a search: the candidates of the priors' window sorted once by every
prior (``priors.reweigh``) the query brings (``query_priors``) and its candidates bring
(``layout_priors``, ``frontend_prior``), the other candidates after them in their order,
then each route handler followed by its registration (``registration_link``)."""

from __future__ import annotations

from collections.abc import Sequence

from ragloom.retrieval.frontend_prior import prior_for_front_end
from ragloom.retrieval.layout_priors import layout_priors
from ragloom.retrieval.priors import Factor, reweigh
from ragloom.retrieval.registration_link import Lookup, registrations_beside
from ragloom.types import SearchResult


def apply_priors(query: str, results: Sequence[SearchResult], window: set[str],
                 priors: list[Factor], lookup: Lookup) -> list[SearchResult]:
    """``results`` with those whose ids are in ``window`` first, sorted by ``priors`` and the
    priors their own paths and texts call for, then the rest in their order; route handlers
    then followed by their registrations (found among them or through ``lookup``)."""
    judged = [r for r in results if r.id in window]
    factors = priors + layout_priors(query, judged) + prior_for_front_end(query, judged)
    return registrations_beside(query, reweigh(judged, factors)
                                + [r for r in results if r.id not in window], len(judged), lookup)
