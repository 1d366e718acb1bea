"""A question asking which values something can take goes to the enumeration listing them.

"What statuses can an entry have", "which roles can a member have", "which two-factor
methods can a user set up": the answer is an enumeration (a Rust, TypeScript, PHP or Java
``enum``, a Python ``Enum`` / Django ``TextChoices`` class, a Go ``const ( ... )`` block),
while the handlers that switch over its values share the question's words and come first.
So when a query asks "what / which ... kinds / types / statuses / states / roles / levels /
modes / categories / methods / policies" and some candidate defines an enumeration, every
other code candidate is multiplied by ``ENUM_WEIGHT``; documents keep their score (a list
in the README answers such a question too).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ragloom.retrieval.priors import Factor
from ragloom.types import SearchResult

#: How much the rank score of a code candidate that defines no enumeration counts.
ENUM_WEIGHT = 0.5
_ASKS = re.compile(r"\b(?:what|which)\s+(?:[\w-]+\s+){0,3}?(?:kinds?|types?|sorts?|statuse?s|states|"
                   r"roles|levels|modes|categories|methods|policies)\b", re.IGNORECASE)
_DEFINES = re.compile(
    r"^\s*(?:pub(?:\([^)]*\))?\s+|export\s+|public\s+)?(?:const\s+)?enum\s+\w+|"
    r"^\s*class\s+\w+\([\w.]*(?:Enum|Choices)\)|"
    r"^const\s*\(\s*\n(?:[ \t]*(?://[^\n]*)?\n)*[ \t]*\w+[ \t]+\w*[ \t]*=[ \t]*(?:iota|\")",
    re.MULTILINE)


def defines_enumeration(text: str) -> bool:
    """Whether ``text`` defines an enumeration (an ``enum``, a Python ``Enum`` /
    ``Choices`` class, a Go ``const (...)`` block of ``iota`` or string values)."""
    return _DEFINES.search(text) is not None


def prior_for_enums(query: str, candidates: Sequence[SearchResult]) -> list[Factor]:
    """A factor of ``ENUM_WEIGHT`` for every code candidate that defines no enumeration,
    when ``query`` asks which values something takes and some candidate defines one."""
    if not _ASKS.search(query):
        return []
    inside = {r.id for r in candidates if defines_enumeration(r.full_text or r.text)}
    if not inside:
        return []

    def factor(result: SearchResult) -> float:
        documents = result.metadata.get("source_type") in ("docs", "text", "pdf")
        return 1.0 if result.id in inside or documents else ENUM_WEIGHT
    return [factor]
