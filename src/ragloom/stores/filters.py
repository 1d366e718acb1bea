"""Moved to ``ragloom.filters`` (filters are used by stores, BM25 and the searcher alike);
kept so code importing them from here keeps working."""

from ragloom.filters import (  # noqa: F401
    Condition,
    Filters,
    compile_filters,
    matches_all,
)
