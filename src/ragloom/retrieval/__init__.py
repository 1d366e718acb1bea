"""The read path: BM25, fusion, MMR and the searcher that runs them."""

from typing import TYPE_CHECKING

from ragloom._lazy import lazy_exports

if TYPE_CHECKING:
    from ragloom.retrieval.bm25 import BM25Index
    from ragloom.retrieval.search_response import SearchResponse
    from ragloom.retrieval.searcher import Searcher
    from ragloom.retrieval.sparse import SparseIndex
    from ragloom.retrieval.tokenize import tokenize

_EXPORTS = {
    "BM25Index": "ragloom.retrieval.bm25",
    "SearchResponse": "ragloom.retrieval.search_response",
    "Searcher": "ragloom.retrieval.searcher",
    "SparseIndex": "ragloom.retrieval.sparse",
    "tokenize": "ragloom.retrieval.tokenize",
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

__all__ = ["BM25Index", "SearchResponse", "Searcher", "SparseIndex", "tokenize"]
