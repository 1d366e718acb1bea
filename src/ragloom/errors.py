"""The ragloom error tree: one base class, subclassing builtins where it fits."""

from __future__ import annotations

from collections.abc import Callable, Iterable


class RagloomError(Exception):
    """Base class of every error ragloom raises on purpose."""


class ConfigError(RagloomError, ValueError):
    """A configuration file or value is invalid; the message names file, key and value."""


class EmbeddingError(RagloomError):
    """An embedding provider could not produce vectors."""


class StoreError(RagloomError):
    """A vector store could not be opened, read or written."""


class IndexLockedError(StoreError):
    """Another process holds the index for writing."""


class IndexNotFoundError(StoreError):
    """There is no index to read yet (reading never creates one)."""


class ReadOnlyError(StoreError):
    """A write was asked of an engine or store opened for reading only."""


class MissingDependencyError(RagloomError, ImportError):
    """An optional dependency is not installed; the message says which extra to install."""


#: How a user rebuilds an index on purpose, for messages.
REBUILD_HINT = ("rebuild it on purpose with 'ragloom index --rebuild' (in Python: "
                "RAGEngine(..., rebuild=True)), which re-indexes the source files")


class RebuildNeededError(StoreError):
    """The index cannot be used as it is; the message names what and how to rebuild.

    ``discard``, when the store can tell, empties exactly what ragloom wrote there (its
    files, its collection) so that a rebuild on purpose can start afresh.
    """

    def __init__(self, message: str, discard: Callable[[], None] | None = None) -> None:
        super().__init__(message)
        self.discard = discard


class IndexMismatchError(RebuildNeededError):
    """The index was built with another embedding identity (model, dimension, quantizer);
    never dropped implicitly, since other processes or machines may share it."""


class CorruptIndexError(RebuildNeededError):
    """A file of the index cannot be read; the message names it."""


class QuotaExceededError(RagloomError):
    """A write would take a collection (or a conversation session) past a ``[rag.limits]``
    limit; nothing of that call was written. The figures are attributes: ``limit`` (the
    key, ``max_chunks``), ``scope`` ("collection 'docs'", "session 'u1'"), ``tenant``
    (whose write it was; None: no tenant's), ``current`` (the tenant's share for a
    ``*_per_tenant`` limit, else the whole collection's), ``adding`` (net: what the call
    adds minus what it replaces) and ``maximum``."""

    def __init__(self, limit: str, scope: str, current: int, adding: int, maximum: int,
                 tenant: str | None = None) -> None:
        self.limit, self.scope, self.tenant = limit, scope, tenant
        self.current, self.adding, self.maximum = current, adding, maximum
        where, by = scope, ""
        if tenant is not None and limit.endswith("_per_tenant"):
            where = f"tenant {tenant!r} in {scope}"
        elif tenant is not None and scope.startswith("collection "):  # every tenant's data
            where, by = f"{scope} (all tenants together)", f" by a write of tenant {tenant!r}"
        elif tenant is not None:  # a session of the tenant's own memory
            where = f"{scope} of tenant {tenant!r}"
        super().__init__(f"{limit} of {where} would be exceeded{by}: {current:,} now + {adding:,} "
                         f"from this call = {current + adding:,} > limit {maximum:,}; nothing "
                         f"of this call was written ([rag.limits] {limit})")


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """``" (did you mean 'top_k'?)"`` when ``word`` looks like a typo of one of ``choices``
    (difflib's close matches), else ``""``: appended to a config error."""
    from difflib import get_close_matches

    options = {choice.lower(): choice for choice in choices}
    close = get_close_matches(word.lower(), list(options), n=1, cutoff=0.6)
    return f" (did you mean {options[close[0]]!r}?)" if close else ""
