"""A question about how entities relate goes to the declarations of those relations.

"Relationships of the customer model: invoices, payments, addresses", "relations of a time
entry to its member, project and task", "how is a user linked to the companies they can
access", "how are replies linked into a thread, with a parent and a root post": every ORM
declares them the same way, one short member per relation (Eloquent's
``return $this->hasMany(Invoice::class);``, Django's ``models.ForeignKey(...)``, Rails'
``has_many :invoices``, SQLAlchemy's ``relationship(...)``, Doctrine / TypeORM's
``@ManyToOne``, diesel's ``belongs_to``). Those members share few words with the question
("relationship" is the framework's word for them, never written in the code), and a
model's longer methods that use the same entities (creating a customer with its addresses,
deleting one with its invoices) outrank them by far.

So when a query uses a word for relations between entities (``RELATION_WORDS``), does not
ask about a check (``_CHECKS``: "make sure the invoice belongs to the user's company" is
answered by the code checking it) and names no part of the application other than the
models that some candidate lives in (a question about "the migration adding the foreign
key" wants the migration), a candidate declaring relations (``declares_relations``) keeps
its rank score and every other candidate is multiplied by ``RELATION_WEIGHT`` in the one
prior sort (``priors.reweigh``). Tests,
components, templates and prose (docs, plain text: "the relationship (2) between ...")
never declare them here. When no candidate declares a relation (a library, a Go service
without an ORM), nothing changes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ragloom.retrieval.path_prior import PRESENTATION, factor_outside, parts_named
from ragloom.retrieval.priors import Factor
from ragloom.types import SearchResult

#: How much the rank score of a candidate declaring no relation counts.
RELATION_WEIGHT = 0.25

#: Words of a question about relations between entities (whole words, any case); "linked to
#: from the footer" is a link in a page, not a relation.
RELATION_WORDS = re.compile(
    r"\b(relations?|relationships?|associations?|belongs?\s+to|"
    r"linked\s+(?:to|into|with)(?!\s+from\b)|(?:one|many)[- ]to[- ](?:one|many)|foreign\s+keys?)\b",
    re.IGNORECASE)

#: Words of a question about a check ("how does sign-up check that an email address belongs
#: to an allowed domain", "make sure the invoice belongs to the user's company"): the code
#: checking answers it, not the relation.
_CHECKS = re.compile(r"\b(check\w*|verif\w*|ensur\w*|make\s+sure|validat\w*|authori[sz]\w*|"
                     r"allowed|permissions?)\b", re.IGNORECASE)

#: Source types that never declare a relation: tests, and prose that may say "relationship (".
_NOT_DECLARING = frozenset({"test", "docs", "text", "pdf", "data"})

#: What only a relation's declaration says, one alternative per ORM family.
_DECLARATIONS = re.compile("|".join((
    # Eloquent: $this->hasMany(...), ->belongsToMany(...), ->morphTo()
    r"->\s*(?:hasMany|hasOne|belongsTo|belongsToMany|hasManyThrough|hasOneThrough|morphMany|"
    r"morphOne|morphTo|morphToMany|morphedByMany)\s*\(",
    # Django, SQLAlchemy, Peewee, Tortoise: ForeignKey(...), ManyToManyField(...), relationship(...)
    r"\b(?:ForeignKey|ManyToManyField|OneToOneField|GenericForeignKey|GenericRelation|ParentalKey|"
    r"ForeignKeyField|ForeignKeyRelation|relationship)\s*\(",
    # Rails, Ecto: has_many :invoices, belongs_to :customer
    r"^\s*(?:has_many|has_one|belongs_to|has_and_belongs_to_many|many_to_many|embeds_many|"
    r"embeds_one)\s*[:(]",
    # Doctrine, TypeORM, JPA attributes and annotations
    r"[@\[\\](?:ORM\\)?(?:ManyToOne|OneToMany|ManyToMany|OneToOne)\b",
    # diesel, SeaORM, GORM, Prisma
    r"\bbelongs_to\s*\(|\bjoinable!\s*\(|\b(?:has_many|belongs_to|has_one)\s*=\s*\"|"
    r"gorm:\"[^\"]*(?:foreignKey|many2many)|@relation\(",
)), re.MULTILINE)


def asks_about_relations(query: str) -> bool:
    """Whether ``query`` uses a word for relations between entities (``RELATION_WORDS``) and
    does not ask about a check (``_CHECKS``)."""
    return RELATION_WORDS.search(query) is not None and _CHECKS.search(query) is None


def declares_relations(result: SearchResult) -> bool:
    """Whether a chunk declares a relation between entities (``_DECLARATIONS``); never a
    test, component, template or prose."""
    meta = result.metadata
    if meta.get("source_type") in _NOT_DECLARING or meta.get("language") in PRESENTATION:
        return False
    return _DECLARATIONS.search(result.full_text or result.text) is not None


def prior_for_relations(query: str, candidates: Sequence[SearchResult],
                        weight: float | None = None) -> list[Factor]:
    """A factor of ``weight`` (default ``RELATION_WEIGHT``) for every candidate declaring no
    relation, when ``query`` asks about relations and names no part of the application but
    the models; none otherwise, or when no candidate declares one."""
    if not asks_about_relations(query) or any(part.name != "models" for part in parts_named(query)):
        return []
    inside = {result.id for result in candidates if declares_relations(result)}
    return [factor_outside(inside, RELATION_WEIGHT if weight is None else weight)] if inside else []
