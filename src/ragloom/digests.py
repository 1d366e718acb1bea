"""Content digests shared by the chunkers, the indexer and the embedding cache."""

from __future__ import annotations

import hashlib


def content_hash(text: str) -> str:
    """sha256 of a text, the key of the embedding cache and of "unchanged chunk" checks."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
