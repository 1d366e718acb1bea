"""The ragloom error tree: one base class, subclassing builtins where it fits."""

from __future__ import annotations


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
