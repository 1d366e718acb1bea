"""Retrievers and the ways their results are combined."""

from ragloom.retrieval.dense import DenseRetriever

__all__ = ["DenseRetriever"]
