"""A route question's handler shown with the line registering it.

An endpoint is two places in most web frameworks: the handler doing the work
(``handler/statuses/reblog.rs: post``, ``ProfileController::edit``, ``views.child_detail``)
and the router line mounting it on a path and verb (``.route("/{id}/reblog",
post(statuses::reblog::post))``, ``Route::get('/profile', [ProfileController::class,
'edit'])``). A question about the endpoint ("API endpoint to boost a post") finds the
handler by what it does, but the router chunk lists twenty registrations whose one
matching line is drowned by the rest (and names the handler, not the action in the
question's words), so it sits far down although it is half the answer.

So when the query names routes (the path prior's ``routes`` part: "endpoint", "route",
"url", ...), each of the first ``HANDLERS`` results that defines something and registers
nothing is followed by the best-ranked later candidate registering it
(``part_content.REGISTRATION``) on one line with its name, and its owner's (class, or
the file's module) unless the name is one of its own (``create_shared_entry``, not ``post``
or ``index``). When no candidate registers it (a router registering dozens of routes is
often deeper than the candidates), BM25 is asked for ``route``, the owner and the name
(the router's indexed text reads its registrations in words, ``chunking.route_lines``)
and the first of its ``LOOKUP`` best chunks registering it comes after the handler. The
order is otherwise kept. On Kitsune "API endpoint to boost someone else's post" went from
0.61 to 1.00 nDCG@10 (the router's ``reblog::post`` line after the handler), wger's "which
url lets a trainer log in as one of their gym members" from 0.50 to 0.63
(docs/benchmarks.md, "Rust web services").
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from ragloom.retrieval.candidates import ChunkSource, build_results, rows_of
from ragloom.retrieval.part_content import REGISTRATION
from ragloom.retrieval.path_prior import parts_named
from ragloom.retrieval.retrievers import Hit, Query
from ragloom.retrieval.sparse_base import SparseBackend
from ragloom.retrieval.test_prior import asks_about_tests
from ragloom.stores.base import VectorStore
from ragloom.types import SearchResult

#: How many of the first results are looked at as handlers.
HANDLERS = 3
#: How many of BM25's best chunks for a handler's words are read to find its registration.
LOOKUP = 10
#: Handler names too common to name a handler without its owner (verbs, CRUD actions,
#: framework hooks every class of a kind defines).
_COMMON_NAMES = frozenset({"get", "post", "put", "patch", "delete", "head", "options", "index",
                           "show", "store", "update", "create", "edit", "destroy", "list",
                           "new", "view", "handle", "handler", "main", "call", "__invoke",
                           "boot", "register", "mount", "render", "setup", "init", "run"})
#: A line defining a name rather than referring to it.
_DEFINES = r"\b(?:function|fn|def|func)\s+"
#: File stems that name no module of their own (the folder does).
_MODULE_FILES = frozenset({"mod", "index", "__init__", "lib", "main"})
_SYMBOL_PARTS = re.compile(r"::|->|\.|#|\\")


class Lookup(Protocol):
    """Where registrations deeper than the candidates are found: BM25's best chunk ids for
    a text, and those chunks as results."""

    def search(self, words: str) -> list[str]: ...

    def read(self, ids: list[str]) -> list[SearchResult]: ...


@dataclass(frozen=True)
class IndexLookup:
    """``Lookup`` over a search's index: BM25 under the query's filters, results scored
    by their cosine to the query as every candidate is."""

    sparse: SparseBackend
    request: Query
    hits: Mapping[str, Sequence[Hit]]
    store: VectorStore
    waiting: ChunkSource | None

    def search(self, words: str) -> list[str]:
        return [doc_id for doc_id, _ in self.sparse.search(words, LOOKUP, self.request.conditions)]

    def read(self, ids: list[str]) -> list[SearchResult]:
        rows = rows_of(self.hits, ids, self.store, self.waiting, self.request.vector)
        return build_results([(doc_id, 0.0) for doc_id in ids], self.hits, rows)


def registrations_beside(query: str, results: Sequence[SearchResult], window: int | None = None,
                         lookup: Lookup | None = None) -> list[SearchResult]:
    """``results`` with each of the first ``HANDLERS`` handlers' registration moved right
    after it (module doc): the best-ranked of the first ``window`` results (default all)
    registering it, else the first of BM25's best ``LOOKUP`` chunks for its words
    (``lookup``) that does; ``results`` in their order when the query names no routes.
    Only the window is read, so what comes first does not depend on how many follow it."""
    ordered = list(results)
    if not any(part.name == "routes" for part in parts_named(query)):
        return ordered
    tests = asks_about_tests(query)  # else a test's route (Route::get('/test', ...)) is none
    window = len(ordered) if window is None else window
    position = looked = 0
    while position < min(window, len(ordered)) and looked < HANDLERS:
        reference = _reference(ordered[position], tests)
        position += 1
        if reference is None:
            continue
        looked += 1
        found = next((n for n in range(position, min(window, len(ordered)))
                      if _registers(ordered[n], tests, *reference)), None)
        if found is None and lookup is not None:
            shown = {r.id for r in ordered[:window]}
            ids = [i for i in lookup.search(" ".join(["route", *filter(None, reversed(reference))]))
                   if i not in shown]
            registration = next((r for r in lookup.read(ids) if _registers(r, tests, *reference)), None)
            if registration is not None:
                ordered = [r for r in ordered if r.id != registration.id]  # a deeper copy goes
                ordered.insert(position, registration)
                position += 1
                window += 1
            continue
        if found is not None:
            ordered.insert(position, ordered.pop(found))
            position += 1
    return ordered


def _reference(result: SearchResult, tests: bool) -> tuple[str, str | None] | None:
    """A handler's name and owner (None when its name is its own), or None for a chunk
    defining nothing, registering routes itself, or of a test (unless ``tests``)."""
    meta = result.metadata
    symbol = str(meta.get("symbol") or meta.get("symbols") or "").split(",")[0].strip()
    if not symbol or REGISTRATION.search(result.full_text or result.text) \
            or not tests and meta.get("source_type") == "test":
        return None
    parts = [p for p in _SYMBOL_PARTS.split(symbol) if p]
    name = parts[-1]
    if name.lower() not in _COMMON_NAMES:
        return name, None
    if len(parts) > 1:
        return name, parts[-2]
    folders = str(meta.get("path") or "").replace("\\", "/").split("/")
    stem = folders[-1].split(".", 1)[0]
    owner = folders[-2] if stem.lower() in _MODULE_FILES and len(folders) > 1 else stem
    return (name, owner) if owner else None


def _registers(result: SearchResult, tests: bool, name: str, owner: str | None) -> bool:
    """Whether ``result`` registers a route and has a line naming ``name`` (and ``owner``)
    without defining it (a provider's ``public function boot()`` names no handler); never
    a test (unless ``tests``): a test registering a route to call a middleware with is no
    registration of the application's."""
    text = result.full_text or result.text
    if not tests and result.metadata.get("source_type") == "test" or not REGISTRATION.search(text):
        return False
    named = re.compile(rf"(?<![\w$]){re.escape(name)}(?!\w)")
    defined = re.compile(rf"{_DEFINES}{re.escape(name)}(?!\w)")
    owned = re.compile(rf"(?<!\w){re.escape(owner)}(?!\w)") if owner else None
    return any(named.search(line) and not defined.search(line) and (owned is None or owned.search(line))
               for line in text.splitlines())
