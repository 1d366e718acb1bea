"""A question about an entity of an application goes to the entity's model.

"What statuses can an entry have", "how is the slug of a child generated", "which feeding
types can be recorded": the answer is the model of the entity the question names (a
field's choices, a ``save()`` override, a cast), in a file under ``models/`` /
``Models/`` / ``model/`` (``core/models.py``'s ``class Child``, ``app/Models/Report.php``,
``internal/model/entry.go``), but the question never says "model", and the code that
uses the entity (views, forms, serializers, templates) shares its words.

So when a query names no part of the application that some candidate lives in
(``path_prior``: a query saying "migration" or "route" wants that part, not the model;
one saying "settings" where no candidate is a settings file still wants the model) and
some candidate under a models folder is named by a word of the query (its file name, or
the class its symbol starts with: ``entry.go``, ``Child.save``; plural words also count
singular), every other candidate is multiplied by ``MODEL_WEIGHT`` in the one prior sort
(``priors.reweigh``). Tests are never the model.

An ORM that generates one module per table names the entity by the file alone: SeaORM's
``model/password_reset_tokens.rs`` declares the same ``Model``, ``Entity``, ``Column``,
``Relation`` and ``ActiveModel`` as every other entity's module (``ORM_TYPES``: no
entity's name, so "which column ..." names none of them). A file name of several words
(``emergency_access.rs``) is not matched word by word: that raised the model above the
job a question about it asked for (Vaultwarden, docs/benchmarks.md).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ragloom.retrieval.path_prior import PARTS, factor_outside, file_stem, parts_inside, path_words
from ragloom.retrieval.priors import Factor
from ragloom.types import SearchResult

#: How much the rank score of a candidate that is not the named entity's model counts.
MODEL_WEIGHT = 0.7
#: Folder and file names that hold an application's models (the path prior's ``models``).
MODEL_FOLDERS = next(part.path_words for part in PARTS if part.name == "models")
_SYMBOL_PARTS = re.compile(r"\.|::|->|#")
#: Types an ORM declares in every entity's module (SeaORM, diesel-style codegen): no
#: entity's name.
ORM_TYPES = frozenset({"entity", "column", "relation", "activemodel", "primarykey",
                       "activemodelbehavior", "related"})


def query_words(query: str) -> set[str]:
    """Lowercase words of ``query``, plural ones also singular (``entries`` -> ``entry``,
    ``roles`` -> ``role``, ``statuses`` -> ``status``; a wrong guess such as ``statuse``
    names nothing)."""
    words: set[str] = set()
    for word in re.findall(r"[a-z0-9]+", query.lower()):
        words.add(word)
        if word.endswith("ies") and len(word) > 4:
            words.add(word[:-3] + "y")
        elif word.endswith("s") and not word.endswith("ss") and len(word) > 3:
            words.add(word[:-1])
            if word.endswith(("ses", "xes", "ches", "shes", "zes")):
                words.add(word[:-2])
    return words


def entity_names(result: SearchResult) -> set[str]:
    """The entities a candidate under a models folder defines, lowercase: its file name and
    the class each of its symbols starts with (``App\\Models\\Report::scopeShared`` ->
    ``report``); none for a file elsewhere or a test."""
    path = str(result.metadata.get("path") or "")
    if not path or result.metadata.get("source_type") == "test" or not MODEL_FOLDERS & path_words(path):
        return set()
    names = {file_stem(path)}
    symbols = str(result.metadata.get("symbols") or result.metadata.get("symbol") or "")
    for symbol in filter(None, (s.strip() for s in symbols.split(","))):
        names.add(_SYMBOL_PARTS.split(symbol.rsplit("\\", 1)[-1])[0].lower())
    return names - MODEL_FOLDERS - ORM_TYPES


def prior_for_models(query: str, candidates: Sequence[SearchResult],
                     weight: float | None = None) -> list[Factor]:
    """A factor of ``weight`` (default ``MODEL_WEIGHT``) for every candidate but the models
    of the entities ``query`` names; none when the query names a part of the application
    some candidate lives in (``path_prior.parts_inside``) or no model."""
    if parts_inside(query, candidates):
        return []
    words = query_words(query)
    inside = {r.id for r in candidates if entity_names(r) & words}
    return [factor_outside(inside, MODEL_WEIGHT if weight is None else weight)] if inside else []
