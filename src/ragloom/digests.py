"""Content digests shared by the chunkers, the indexer and the embedding cache."""

from __future__ import annotations

import hashlib


def content_hash(text: str) -> str:
    """sha256 of a text, the key of the embedding cache and of "unchanged chunk" checks."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def key_hash(text: str) -> int:
    """A stable 64-bit hash of ``text`` (blake2b; Python's ``hash`` changes per process):
    the key of on-disk lookups and of the id digests a store and its BM25 index compare."""
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8", "surrogatepass"),
                                          digest_size=8).digest(), "little")
