"""Licence texts rank below comparable documents unless the question is about licensing.

A ``LICENSE`` / ``COPYING`` / ``NOTICE`` file is long prose in the words every project uses
("contributors", "source", "work", "modify", "distribute", "server"), and its clauses
answer no question about the application: sections of ``LICENSE.md`` came into the top 5
of six questions of the Laravel and Rust dev sets (none about licences), and of
``LICENSE-AGPL-3.0`` / ``LICENSE-APACHE-2.0`` into the top 5 of "overview of the project's
folder layout for new contributors". Such chunks (a ``docs`` or ``text`` file named
``LICENSE*``, ``LICENCE*``, ``COPYING*``, ``NOTICE*``, ``COPYRIGHT*``, ``UNLICENSE``) are
multiplied by ``LEGAL_WEIGHT`` in the one prior sort (``priors.reweigh``) unless the query
says licence, copyright, warranty, a licence's name (GPL, MIT, Apache, BSD, MPL) and the
like; a chunk found by the exact name the query uses is never demoted. A program named
``license.rs`` is code, not a licence text. No configuration key: measured, not tuned.
"""

from __future__ import annotations

import re

from ragloom.retrieval.priors import Factor
from ragloom.types import SearchResult

#: How much the rank score of a licence text counts for a query not about licensing.
LEGAL_WEIGHT = 0.5
_LEGAL_FILE = re.compile(r"^(licen[cs]e|copying|notice|copyright|unlicense)([-_.][^/]*)?$",
                         re.IGNORECASE)
_ABOUT_LEGAL = re.compile(
    r"\b(licen[cs](e|es|ed|ing)|sublicens\w*|copyrights?|copyleft|warrant(y|ies)|liability|"
    r"legal|patents?|trademarks?|a?gpl|lgpl|mit|apache|bsd|mpl|eupl|proprietary|"
    r"open[- ]source)\b", re.IGNORECASE)


def asks_about_licensing(query: str) -> bool:
    """Whether ``query`` uses a word about licences or their terms (whole words)."""
    return _ABOUT_LEGAL.search(query) is not None


def is_legal_text(path: str, source_type: object) -> bool:
    """Whether the file at ``path`` (``/``-separated) is a licence text: its name is a
    licence file's and it is a document, not a program."""
    name = path.rsplit("/", 1)[-1]
    return source_type in ("docs", "text") and _LEGAL_FILE.match(name) is not None


def prior_for_licences(query: str) -> list[Factor]:
    """``LEGAL_WEIGHT`` for a licence text's chunk not found by the exact name the query
    uses, else 1; none when the query is about licensing."""
    if asks_about_licensing(query):
        return []

    def factor(result: SearchResult) -> float:
        meta = result.metadata
        legal = is_legal_text(str(meta.get("path", "")), meta.get("source_type"))
        return LEGAL_WEIGHT if legal and "name" not in result.retrievers else 1.0
    return [factor]
