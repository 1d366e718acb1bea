"""A question naming a part of the application that none of its first results is inside
looks up that part's own best chunks.

The candidates the priors reorder are each retriever's best ``candidate_k`` over the whole
repository, and score fusion values them by where they sit among those. A migration that
answers "where is the table for bookmark tags created" (linkding's ``0002_auto_...py``,
``CreateModel(name="Tag")``) shares few words with the question and ranks deep (BM25
172nd, dense 851st), so its fused value is near 0 and the path prior (``path_prior``: the
part's files up among comparable matches) never lifts it over the templates about tags
(Miniflux's ``/metrics`` line in ``internal/http/server/routes.go`` for "where is the
prometheus metrics endpoint mounted": BM25 22nd, dense 139th); and a file of the part
ranking deeper than ``candidate_k`` in both is not a candidate at all.

So when the query names parts (``path_prior.parts_named``) and, after the priors, no result
of its first ``SHOWN`` files is inside any of them (``part_missing``; for a question asking
for one migration, none is a migration), BM25 is asked once more per part, restricted to
the chunks inside it (their path names it, or for the docs part their ``source_type``;
never a test unless tests are asked about, a data row, a component or a template; for a
question asking for one migration the migrations themselves when there are any), for its
best ``retrieval.part_lookup`` chunks. Those enter the priors' window valued at least as
its ``PART_RANK``-th candidate, and the priors run again: the part's best chunks compete
as fair matches, the path prior lifts them, and a far better match elsewhere still comes
first. The 10th candidate's value lifted a part a question names in passing ("url" in
"what happens when I save a url", "how often can a member be charged") above its answer;
the 30th does not (docs/benchmarks.md, "The part a question names, looked up").

The lookup reads the BM25 index every store backend has (``SparseBackend.search`` with a
path ``$in`` condition: the segments' index the local stores share, or Postgres' own), so
it works the same on each; it costs one BM25 search per part named, and only for the
questions whose part is missing from their first results.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from ragloom.filters import Node, compile_filters
from ragloom.retrieval.path_prior import (
    PRESENTATION,
    Part,
    is_one_migration,
    parts_inside,
    parts_named,
    path_words,
)
from ragloom.retrieval.retrievers import Ranking
from ragloom.retrieval.sparse_base import SparseBackend
from ragloom.retrieval.test_prior import asks_about_tests
from ragloom.types import SearchResult

#: The rank in the priors' window whose value a looked-up chunk gets at least.
PART_RANK = 30
#: A question asking for one migration (``Part.strong``) looks up migrations themselves
#: first, as the path prior counts only them inside the part for it (``is_one_migration``).
_MIGRATIONS = compile_filters({"source_type": "migration"})
#: How many of the first files among the results (after the priors) must hold nothing of
#: the parts a query names for the lookup to run.
SHOWN = 5


@lru_cache(maxsize=65536)
def _words_of(path: str) -> frozenset[str]:
    return frozenset(path_words(path))


def part_conditions(part: Part, paths: list[str]) -> list[Node]:
    """The conditions selecting the chunks inside ``part`` among files at ``paths``: its
    ``source_type`` for the docs part, else the paths whose words name it and not what it
    is unlike, no component or template among them; none when no file is inside it."""
    if part.source_type is not None:
        return compile_filters({"source_type": part.source_type})
    inside = [path for path in paths if part.path_words & _words_of(path)
              and not part.unlike & _words_of(path)]
    return compile_filters({"path": {"$in": inside}, "language": {"$nin": sorted(PRESENTATION)}}) \
        if inside else []


def first_files(results: Sequence[SearchResult], count: int) -> list[SearchResult]:
    """The leading ``results`` up to the first ``count`` files' (a search shows one result
    or two per file: ``max_per_file``)."""
    paths: set[object] = set()
    shown = []
    for result in results:
        path = result.metadata.get("path", result.id)
        if path not in paths and len(paths) == count:
            break
        paths.add(path)
        shown.append(result)
    return shown


def part_missing(query: str, results: Sequence[SearchResult]) -> bool:
    """Whether ``query`` names parts of the application and none of the results of its
    first ``SHOWN`` files (``first_files``) is inside any of them (as the path prior counts
    them: ``parts_inside``), or it asks for one migration (``Part.strong``) and none of them is one."""
    parts = parts_named(query)
    if not parts:
        return False
    shown = first_files(results, SHOWN)
    if not any(parts_inside(query, shown)):
        return True
    return any(part.strong is not None and part.strong.search(query) for part in parts) \
        and not any(is_one_migration(result) for result in shown)


def look_up_parts(query: str, sparse: SparseBackend, conditions: list[Node], k: int) -> list[str]:
    """Ids of the best ``k`` chunks (BM25, under ``conditions``) inside each part
    ``query`` names, part by part, each once (for a question asking for one migration,
    the best migrations, when there are any); none when it names no part or ``k`` is 0."""
    parts = parts_named(query) if k > 0 else []
    if not parts:
        return []
    paths = [str(path) for path in sparse.distinct_values("path")]
    kinds = ["data"] if asks_about_tests(query) else ["data", "test"]
    base = [*conditions, *compile_filters({"source_type": {"$nin": kinds}})]
    found: list[str] = []
    for part in parts:
        inside = part_conditions(part, paths)
        if not inside:
            continue
        best = sparse.search(query, k, [*base, *inside, *_MIGRATIONS]) \
            if part.strong is not None and part.strong.search(query) else []
        found += [doc_id for doc_id, _ in best or sparse.search(query, k, [*base, *inside])
                  if doc_id not in found]
    return found


def with_part_chunks(kept: Ranking, window: set[str], found: list[str]) -> tuple[Ranking, set[str]]:
    """``kept`` with the ``found`` chunks in the priors' ``window``, each valued at least as
    the window's ``PART_RANK``-th candidate and placed after the window's candidates of an
    equal or higher value (in ``found``'s order; the others keep theirs); ``kept`` and
    ``window`` as they are when nothing was found."""
    if not found:
        return kept, window
    head = [pair for pair in kept if pair[0] in window]
    if not head:
        return kept, window
    floor = head[min(PART_RANK, len(head)) - 1][1]
    values = dict(kept)
    lifted = {doc_id: max(values.get(doc_id, floor), floor) for doc_id in found}
    head = [pair for pair in head if pair[0] not in lifted]  # the others keep their order
    for doc_id, value in lifted.items():
        head.insert(next((at for at, pair in enumerate(head) if pair[1] < value), len(head)),
                    (doc_id, value))
    chosen = {doc_id for doc_id, _ in head}
    return head + [pair for pair in kept if pair[0] not in chosen], chosen
