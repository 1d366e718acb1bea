"""The query options of ``ragloom search`` and ``ragloom context`` (what ``engine.search``
takes: mode, metadata filters, path glob, min_score, top_k, the relevance gate) and how
their results and empty answers are shown."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any, TextIO

from ragloom.filters import compile_filters
from ragloom.prompt import one_line, printable
from ragloom.retrieval.search_mode import SEARCH_MODES as SEARCH_MODES  # --mode's choices

if TYPE_CHECKING:
    from ragloom.retrieval.search_response import SearchResponse
    from ragloom.types import SearchResult


class QueryUsageError(ValueError):
    """A query option that cannot work (the CLI exits with code 2)."""


def add_query_options(command: argparse.ArgumentParser, positive_int: Any) -> None:
    """The options ``search`` and ``context`` share."""
    command.add_argument("query")
    command.add_argument("--top-k", type=positive_int, help="how many results (default: top_k)")
    command.add_argument("--mode", choices=SEARCH_MODES,
                         help="dense (embeddings), sparse (BM25) or hybrid (both; default: "
                         "retrieval.hybrid)")
    command.add_argument("--where", action="append", default=[], metavar="KEY=VALUE",
                         help="only chunks whose metadata KEY is VALUE (a number, true/false, a "
                         "\"quoted string\" or plain text); A,B,C matches any of them; "
                         "repeat for more keys (all must hold)")
    command.add_argument("--path", metavar="GLOB", help="only files whose path matches GLOB "
                         "(* and ? within a folder, ** across folders)")
    command.add_argument("--min-score", type=float, metavar="COSINE",
                         help="drop results whose cosine similarity to the query is lower")
    command.add_argument("--no-gate", action="store_true",
                         help="show results even when none reaches the relevance gate")
    tests = command.add_mutually_exclusive_group()
    tests.add_argument("--include-tests", action="store_true",
                       help="rank test files like application code (retrieval.test_weight = 1)")
    tests.add_argument("--no-tests", action="store_true",
                       help="leave test files out (retrieval.include_tests = false)")
    command.add_argument("--compress", action=argparse.BooleanOptionalAction, default=None,
                         help="keep only the lines of each result that bear on the query, the "
                         "others marked as omitted (default: retrieval.compress)")
    command.add_argument("--json", action="store_true", help="machine-readable output")


def test_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The ``[rag.retrieval]`` values ``--include-tests`` / ``--no-tests`` set."""
    if getattr(args, "include_tests", False):
        return {"test_weight": 1.0}
    if getattr(args, "no_tests", False):
        return {"include_tests": False}
    return {}


def filters_from(args: argparse.Namespace) -> dict[str, Any] | None:
    """The metadata filters ``--where`` and ``--path`` ask for (checked like the API's)."""
    filters: dict[str, Any] = {}
    for condition in args.where:
        key, equals, text = condition.partition("=")
        key = key.strip()
        if not equals or not key:
            raise QueryUsageError(f"--where {condition!r}: expected KEY=VALUE")
        if key in filters:
            raise QueryUsageError(f"--where {key}=...: given twice; list the values as "
                                  f"{key}=A,B to match any of them")
        values = [_scalar(part) for part in text.split(",")] if "," in text else None
        filters[key] = {"$in": values} if values is not None else _scalar(text)
    if args.path:
        if "path" in filters:
            raise QueryUsageError("--path and --where path=... both filter the path; give one")
        filters["path"] = {"$glob": args.path}
    if not filters:
        return None
    try:
        compile_filters(filters)
    except ValueError as exc:
        raise QueryUsageError(str(exc)) from None
    return filters


def _scalar(text: str) -> Any:
    """A JSON number, true/false or "string" as itself; anything else as plain text."""
    stripped = text.strip()
    try:
        value = json.loads(stripped)
    except (ValueError, RecursionError):  # a list nested thousands deep is plain text too
        return stripped
    return value if isinstance(value, (int, float, bool, str)) else stripped


def location(result: SearchResult) -> str:
    """``path:12-30`` for text, ``path page 3`` or ``path pages 3-4`` for paged documents."""
    meta = result.metadata
    where = one_line(str(meta.get("path", result.id)))  # a name may hold a newline or an escape
    if "page" in meta:
        last = meta.get("page_end")
        pages = f"pages {meta['page']}-{last}" if last not in (None, meta["page"]) else f"page {meta['page']}"
        return f"{where} {pages}"
    return f"{where}:{meta.get('start_line', '?')}-{meta.get('end_line', '?')}"


def explain(response: SearchResponse, no_gate: bool, gate_off: float | None, empty_index: bool,
            min_score: float | None, stream: TextIO = sys.stderr) -> None:
    """Say on stderr why a search shows nothing (or what ``--no-gate`` let through): the
    best score and the gate, so the user sees what was cut."""
    best = "no result" if response.best_score is None else f"best score {response.best_score:.4f}"
    if no_gate:
        gate = "none set" if gate_off is None else f"{gate_off}"
        print(f"ragloom: relevance gate off for this query (gate: {gate}); {best}", file=stream)
    if response.results:
        return
    if empty_index:
        print("ragloom: the index is empty; run 'ragloom index' to add files", file=stream)
    elif response.candidates.get("below_relevance_gate"):
        print(f"ragloom: nothing relevant: {best}, below the relevance gate "
              f"{response.relevance_gate} (cosine); --no-gate shows these results anyway",
              file=stream)
    elif min_score is not None and response.best_score is not None:
        print(f"ragloom: no result reached the minimum score {min_score}; {best}", file=stream)
    elif not no_gate:
        print("ragloom: no results for this query", file=stream)


#: What ``rank_score`` is in each search mode (the number results are ordered by).
RANKED_BY = {"dense": "cosine", "sparse": "bm25", "hybrid": "fused", "remote": "score"}


def print_results(results: list[SearchResult], as_json: bool, out: TextIO, mode: str = "hybrid",
                  verbose: bool = False) -> None:
    """Ranked results: rank, the score they are ranked by (``rank_score``: fused in hybrid
    mode; with ``verbose`` the cosine beside it), where (lines, or pages), the text. JSON
    holds both: ``rank_score`` and ``score`` (the cosine)."""
    if as_json:
        print(json.dumps([r.to_dict() for r in results], indent=2), file=out)
        return
    label = RANKED_BY.get(mode, "score")
    for rank, r in enumerate(results, start=1):
        ranked = float(r.rank_score if r.rank_score is not None else r.score)
        shown = f"{ranked:.4f} {label}, cosine {r.score:.4f}" if verbose and label != "cosine" else (
            f"{ranked:.4f} {label}" if verbose else f"{ranked:.4f}")
        print(f"{rank}. {shown}  {location(r)}", file=out)
        print("   " + printable(r.text.strip()).replace("\n", "\n   ")[:400], file=out)
