"""Argument checks at RAGEngine's public methods (and so their async twins): a wrong type
is a TypeError, a value out of range a ValueError, each naming the argument and what it
got, before any work (``top_k=2.5`` was a raw "slice indices" TypeError deep in a store,
``query=None`` an AttributeError)."""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Mapping
from typing import Any

from ragloom.config import RAGConfig
from ragloom.tenancy import check_tenant, scoped_filters


def _got(value: Any) -> str:
    text = repr(value)
    return f"{text[:80]}... ({type(value).__name__})" if len(text) > 80 else \
        f"{text} ({type(value).__name__})"


def check_text(name: str, value: Any) -> None:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, got {_got(value)}")


def check_whole(name: str, value: Any, minimum: int) -> None:
    """None (the default) or a whole number of at least ``minimum``."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be a whole number, got {_got(value)}")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")


def check_engine_config(value: Any) -> None:
    if value is not None and not isinstance(value, RAGConfig):
        raise TypeError(f"config must be a RAGConfig (load_config or RAGConfig(...)), got {_got(value)}")


def check_path(name: str, value: Any, optional: bool = False) -> None:
    if value is None and optional:
        return
    if not isinstance(value, (str, os.PathLike)):
        raise TypeError(f"{name} must be a path (str or os.PathLike), got {_got(value)}")


def check_patterns(name: str, value: Any) -> None:
    """None or a list of glob strings (one bare string would be read letter by letter)."""
    if value is None:
        return
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{name} must be a list of glob patterns, got {_got(value)}")
    for pattern in value:
        if not isinstance(pattern, str):
            raise TypeError(f"{name}: each pattern must be a string, got {_got(pattern)}")


def check_flag(name: str, value: Any) -> None:
    if value is not None and not isinstance(value, bool):
        raise TypeError(f"{name} must be True, False or None, got {_got(value)}")


def check_search(query: Any, top_k: Any, filters: Any, mode: Any, mmr: Any,
                 min_score: Any, compress: Any = None, tenant: str | None = None) -> None:
    """Every argument of ``search``/``search_detailed``; an engine's ``tenant`` scopes
    every search, so a filter naming ``tenant`` is refused."""
    check_text("query", query)
    check_whole("top_k", top_k, 1)
    if filters is not None and not isinstance(filters, Mapping):
        raise TypeError(f"filters must be a mapping of metadata key to condition, got {_got(filters)}")
    if tenant is not None:
        scoped_filters(tenant, filters)
    if mode is not None:
        check_text("mode", mode)
    check_flag("mmr", mmr)
    check_flag("compress", compress)
    if min_score is not None:
        if isinstance(min_score, bool) or not isinstance(min_score, numbers.Real):
            raise TypeError(f"min_score must be a number, got {_got(min_score)}")
        if math.isnan(min_score):
            raise ValueError("min_score must be a number, got NaN (no result would pass it)")


def tenant_of(config: RAGConfig, tenant: Any) -> str | None:
    """The engine's tenant: the ``tenant`` argument, else ``[rag] tenant`` (checked)."""
    return config.tenant if tenant is None else check_tenant(tenant, "tenant argument")
