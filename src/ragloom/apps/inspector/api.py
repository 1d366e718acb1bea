"""The inspector's JSON answers: a search as ``ragloom search`` runs it (same options, same
checks, ``engine.search_detailed`` with its stage timings and retriever ranks), the index's
make-up, and an indexed file's text with its chunks' boundaries. Each takes the request's
query parameters and raises ApiError (an HTTP status and a message) for a bad one."""

from __future__ import annotations

import argparse
import logging
import math
from typing import TYPE_CHECKING, Any

from ragloom.apps.indexed_files import FileRefused, confined, read_indexed_file
from ragloom.apps.inspector.makeup import MakeUp
from ragloom.apps.query_options import SEARCH_MODES, QueryUsageError, filters_from
from ragloom.engine.arguments import check_search
from ragloom.errors import RagloomError
from ragloom.retrieval.search_mode import SearchMode
from ragloom.retrieval.search_response import SearchResponse
from ragloom.retrieval.searcher import Searcher

if TYPE_CHECKING:
    from ragloom.engine import RAGEngine

logger = logging.getLogger("ragloom")
#: The largest ``top_k`` one page request may ask for.
MAX_TOP_K = 200
SEARCH_PARAMS = frozenset({"q", "mode", "where", "path", "top_k", "min_score", "gate"})
_REFUSAL_STATUS = {"outside": 403, "unknown": 404, "unreadable": 403}


class ApiError(Exception):
    """A request the inspector refuses: ``status`` is its HTTP status code."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def _single(params: dict[str, list[str]], name: str) -> str | None:
    values = params.get(name)
    if not values:
        return None
    if len(values) > 1:
        raise ApiError(400, f"parameter {name!r} given {len(values)} times; give it once")
    return values[0]


def _check_known(params: dict[str, list[str]], known: frozenset[str]) -> None:
    unknown = sorted(set(params) - known)
    if unknown:
        raise ApiError(400, f"unknown parameter {unknown[0]!r}; expected one of {', '.join(sorted(known))}")


def _number(params: dict[str, list[str]], name: str, kind: type, low: float, high: float) -> Any:
    text = _single(params, name)
    if text is None or text.strip() == "":
        return None
    try:
        value = kind(text)
    except ValueError:
        raise ApiError(400, f"parameter {name!r}: not a {'whole ' if kind is int else ''}number: "
                       f"{text!r}") from None
    if not (low <= value <= high) or (isinstance(value, float) and not math.isfinite(value)):
        raise ApiError(400, f"parameter {name!r}: {text} is outside {low:g}..{high:g}")
    return value


class Inspector:
    """The JSON endpoints over one read-only engine (searches with the gate off go through
    a second Searcher over the same store, as ``--no-gate`` opens the engine without it)."""

    def __init__(self, engine: RAGEngine) -> None:
        self.engine = engine
        self.make_up = MakeUp(engine)
        self._ungated: Searcher | None = None
        if engine.config.enabled:
            ungated = engine.config.model_copy(update={"relevance_gate": False})
            self._ungated = Searcher(engine.provider, engine.store, engine.sparse, ungated)

    def search(self, params: dict[str, list[str]]) -> dict[str, Any]:
        """``/api/search``: q, mode, where (repeated KEY=VALUE), path (glob), top_k,
        min_score, gate (on/off), as ``ragloom search`` takes them."""
        _check_known(params, SEARCH_PARAMS)
        query = _single(params, "q") or ""
        if not query.strip():
            raise ApiError(400, "parameter 'q' (the query) is missing or empty")
        mode = _single(params, "mode") or None
        if mode is not None and mode not in SEARCH_MODES:
            raise ApiError(400, f"parameter 'mode': {mode!r} is not one of {', '.join(SEARCH_MODES)}")
        top_k = _number(params, "top_k", int, 1, MAX_TOP_K)
        min_score = _number(params, "min_score", float, -1.0, 1.0)
        gate = (_single(params, "gate") or "on").lower()
        if gate not in ("on", "off"):
            raise ApiError(400, f"parameter 'gate': {gate!r} is not 'on' or 'off'")
        options = argparse.Namespace(where=[w for w in params.get("where", []) if w.strip()],
                                     path=_single(params, "path") or None)
        try:
            filters = filters_from(options)
            response = self._run(query, top_k, filters, mode, min_score, gate == "off")
        except (QueryUsageError, ValueError, TypeError) as exc:
            raise ApiError(400, str(exc)) from None
        return {"query": query, "gate": gate, "filters": filters, **_response(response)}

    def _run(self, query: str, top_k: int | None, filters: dict[str, Any] | None,
             mode: str | None, min_score: float | None, gate_off: bool) -> SearchResponse:
        if not gate_off or self._ungated is None:
            return self.engine.search_detailed(query, top_k, filters=filters, mode=mode,
                                               min_score=min_score)
        check_search(query, top_k, filters, mode, None, min_score)  # as search_detailed checks
        k = self.engine.config.top_k if top_k is None else top_k
        return self._ungated.search(query, k, filters, None if mode is None else SearchMode.of(mode),
                                    None, min_score)

    def index(self, params: dict[str, list[str]]) -> dict[str, Any]:
        """``/api/index``: the status record (files pending and skipped counted now) plus
        files and chunks by language and source type and a histogram of chunk sizes."""
        _check_known(params, frozenset())
        status = self.engine.status()
        return {"status": status.to_dict(), **self.make_up.of(status.chunks, status.last_indexed)}

    def warm(self) -> None:
        """Do ahead of the first requests what they would wait for: load the embedding
        model and map the index (one search), work out the make-up."""
        try:
            if self.engine.config.enabled:
                self.engine.search_detailed("warm up", top_k=1)
            status = self.engine.status(count_pending=False)
            self.make_up.of(status.chunks, status.last_indexed)
        except (RagloomError, OSError, ValueError) as exc:  # the request will say it again
            logger.warning("inspect: warming up failed: %s", exc)

    def file(self, params: dict[str, list[str]]) -> dict[str, Any]:
        """``/api/file``: an indexed file's text (redacted) and its chunks' line ranges, in
        order; ``id`` names the chunk to show (its neighbours are the chunks beside it)."""
        _check_known(params, frozenset({"path", "id"}))
        relative = _single(params, "path")
        if not relative:
            raise ApiError(400, "parameter 'path' is missing")
        try:
            text = read_indexed_file(self.engine, confined(relative))
        except FileRefused as refused:
            raise ApiError(_REFUSAL_STATUS[refused.reason], str(refused)) from None
        chunks = sorted(({"id": chunk_id, **{key: meta[key] for key in (
            "chunk_index", "start_line", "end_line", "symbol", "heading_path", "kind", "page")
            if key in meta}} for chunk_id, meta in self.engine.sparse.chunks_with("path", [relative])),
            key=lambda c: (c.get("start_line", 0), c.get("chunk_index", 0)))
        wanted = _single(params, "id")
        position = next((i for i, chunk in enumerate(chunks) if chunk["id"] == wanted), None)
        if wanted is not None and position is None:
            raise ApiError(404, f"no chunk {wanted!r} in {relative!r}")
        return {"path": relative, "text": text, "chunks": chunks, "selected": position}


def _response(response: SearchResponse) -> dict[str, Any]:
    """The search as JSON: results with their ranks per retriever, timings, candidates."""
    results = [{"id": r.id, "path": r.path, "text": r.text, "score": r.score,
                "rank_score": r.rank_score, "metadata": r.metadata,
                "retrievers": {name: {"rank": hit.rank, "score": hit.score}
                               for name, hit in r.retrievers.items()}}
               for r in response.results]
    return {"mode": response.mode, "results": results, "timings_ms": response.timings_ms,
            "candidates": response.candidates, "best_score": response.best_score,
            "relevance_gate": response.relevance_gate}

