"""A question about the whole project goes to its README.

"What is this project", "what does this app do", "what is it built with": someone who just
joined asks what the repository is before anything in it, and the README at its root
says so. Such a question shares few words with any chunk (the README says "a federated
blogging engine written in Rust", never "project" or "built"), so its best cosine can
fall under the relevance gate and the search came back empty though the question is about
the corpus by its very words; and when it passes, code that happens to say "project" or
"build" outranks the README's opening.

So a question asking what the project is, does or is made of (``OVERVIEW``) always passes
the gate (``searcher``), and when a README at the repository's root is among the
candidates, every other candidate is multiplied by ``OVERVIEW_WEIGHT`` in the one prior
sort (``priors.reweigh``). A README in a subfolder describes that folder (an icon set's
licence), not the project. A question about one feature of "this app" ("how does this app
send emails") is no overview: it asks about the feature.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ragloom.retrieval.path_prior import factor_outside, file_stem
from ragloom.retrieval.priors import Factor
from ragloom.types import SearchResult

#: How much the rank score of a candidate other than the root README counts.
OVERVIEW_WEIGHT = 0.5

_PROJECT = r"(?:this|the|our)\s+(?:project|repo|repository|codebase|code\s*base|app|application)"
#: A question about the whole project: what it is, does or is for, what it is built with.
OVERVIEW = re.compile(
    rf"\bwhat\s+(?:is|does|are)\s+{_PROJECT}(?:\s+(?:do|does|for|about))?\s*(?:[?,.;]|and\b|$)|"
    r"\b(?:what\s+is\s+(?:it|this)|what\s+(?:languages?|frameworks?|technolog(?:y|ies))\s+"
    r"(?:is|are)\s+(?:it|this|used))\s+(?:built|written|made|developed)\s+(?:with|in|on)\b|"
    rf"\btech(?:nology)?\s+stack\s+of\s+{_PROJECT}\b",
    re.IGNORECASE)


def asks_for_an_overview(query: str) -> bool:
    """Whether ``query`` asks what the whole project is, does or is built with."""
    return OVERVIEW.search(query) is not None


def is_root_readme(result: SearchResult) -> bool:
    """Whether a chunk is of the README at the repository's root (``README.md``,
    ``README.rst``, ``README``), not of a subfolder's."""
    path = str(result.metadata.get("path") or "").replace("\\", "/").lstrip("./")
    return "/" not in path and file_stem(path) == "readme"


def prior_for_overview(query: str, candidates: Sequence[SearchResult],
                       weight: float | None = None) -> list[Factor]:
    """A factor weighing candidates other than the root README by ``weight`` (default
    ``OVERVIEW_WEIGHT``) when ``query`` asks for an overview; none otherwise, or when no
    candidate is of the root README."""
    if not asks_for_an_overview(query):
        return []
    inside = {result.id for result in candidates if is_root_readme(result)}
    if not inside:
        return []
    return [factor_outside(inside, OVERVIEW_WEIGHT if weight is None else weight)]
