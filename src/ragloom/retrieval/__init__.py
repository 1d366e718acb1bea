"""The read path: BM25, fusion, MMR and the searcher that runs them."""

from ragloom.retrieval.bm25 import BM25Index
from ragloom.retrieval.searcher import Searcher, SearchResponse
from ragloom.retrieval.sparse import SparseIndex
from ragloom.retrieval.tokenize import tokenize

__all__ = ["BM25Index", "SearchResponse", "Searcher", "SparseIndex", "tokenize"]
