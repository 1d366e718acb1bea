"""The priors a query brings whatever its candidates: tests (and model factories), import
blocks, data rows and licence texts below the rest unless the query asks about them, the
wiring (routes, settings, templates) below the code at work for a question about how
something works, and prose documents below the code for a question about how it works or
where it is.
``priors.reweigh`` sorts by them once, with the priors its candidates bring (``layout_priors``,
``frontend_prior``)."""

from __future__ import annotations

from ragloom.config.tables import RetrievalConfig
from ragloom.retrieval.data_prior import prior_for_data
from ragloom.retrieval.import_prior import asks_about_imports, prior_for_imports
from ragloom.retrieval.legal_prior import prior_for_licences
from ragloom.retrieval.priors import Factor
from ragloom.retrieval.prose_prior import prior_for_prose
from ragloom.retrieval.test_prior import asks_about_tests, prior_for_factories, prior_for_tests
from ragloom.retrieval.wiring_prior import prior_for_wiring


def query_priors(query: str, settings: RetrievalConfig) -> list[Factor]:
    """The factors of the priors ``query`` calls for, with ``settings``' weights."""
    priors = [] if asks_about_tests(query) else [prior_for_tests(settings.test_weight),
                                                 *prior_for_factories(query, settings.test_weight)]
    if not asks_about_imports(query):
        priors.append(prior_for_imports(settings.import_weight))
    return priors + prior_for_data(query) + prior_for_licences(query) \
        + prior_for_wiring(query, settings.wiring_weight) + prior_for_prose(query)
