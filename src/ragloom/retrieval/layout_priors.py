"""The priors a question's words about an application's layout call for, together: files
in the part of the application it names first (``path_prior``), else the model of the
entity it names (``model_prior``), and the enumeration listing the values it asks for
(``enum_prior``), the declarations of the relations between entities it asks about
(``relation_prior``), the migration creating the table whose definition it asks for
(``table_prior``), and for a question asking what the whole project is, its root README
(``overview_prior``). Each is a factor for ``priors.reweigh``. When the query names an
enumeration some candidate defines, the model prior stands aside: the enumeration is the
entity's model part it asks about, wherever the layout files it (``app/Enums/Role.php``
is under no models folder, and the model of "member" is not the list of its roles)."""

from __future__ import annotations

from collections.abc import Sequence

from ragloom.retrieval.enum_prior import named_enumerations, prior_for_enums
from ragloom.retrieval.model_prior import prior_for_models
from ragloom.retrieval.overview_prior import prior_for_overview
from ragloom.retrieval.path_prior import prior_for_paths
from ragloom.retrieval.priors import Factor
from ragloom.retrieval.relation_prior import prior_for_relations
from ragloom.retrieval.table_prior import prior_for_tables
from ragloom.types import SearchResult


def layout_priors(query: str, candidates: Sequence[SearchResult]) -> list[Factor]:
    """The path, model, enumeration, relation, table and overview priors of ``query`` over
    ``candidates`` (none when it names neither a part of the application nor an entity with
    a model among them nor asks which values something takes, how entities relate or what
    the project is)."""
    models = [] if named_enumerations(query, candidates) else prior_for_models(query, candidates)
    return prior_for_paths(query, candidates) + models + prior_for_enums(query, candidates) \
        + prior_for_relations(query, candidates) + prior_for_tables(query, candidates) \
        + prior_for_overview(query, candidates)
