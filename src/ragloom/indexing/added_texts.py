"""Checking texts added through the API (``ingest_text`` and its batch form
``add_documents``) before anything is embedded or written: one set of rules, errors that
name the culprit."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ragloom.types import Metadata

#: Chunk metadata keys ragloom sets; an ingested text's metadata may not set them.
RESERVED_KEYS = frozenset({"path", "chunk_index", "start_line", "end_line", "start_char", "end_char",
                           "source", "source_id", "file_hash", "content_hash", "embedding_model"})


@dataclass(frozen=True)
class AddedText:
    """One text to ingest, checked: its source id, text, extra metadata and language."""

    source_id: str
    text: str
    metadata: Metadata
    language: str | None = None


def checked_source(source_id: object, text: object, metadata: object,
                   language: object = None) -> AddedText:
    """``ingest_text``'s arguments once each is valid: a non-empty string id, a string text,
    scalar metadata (str, int, float, bool) under string keys ragloom does not set, a
    string language or None. Else ValueError naming the source and the culprit."""
    if not isinstance(source_id, str) or not source_id.strip():
        raise ValueError(f"source_id must be a non-empty string, got {source_id!r}")
    label = f"source {source_id!r}"
    if not isinstance(text, str):
        raise ValueError(f"{label}: text must be a string, got {type(text).__name__}")
    if language is not None and not isinstance(language, str):
        raise ValueError(f"{label}: language must be a string, got {language!r}")
    if metadata is not None and not isinstance(metadata, dict):
        raise ValueError(f"{label}: metadata must be a dict, got {type(metadata).__name__}")
    extra = dict(metadata or {})
    for key, value in extra.items():
        if key in RESERVED_KEYS:
            raise ValueError(f"{label}: metadata key {key!r} is set by ragloom")
        if not isinstance(key, str) or not isinstance(value, (str, int, float, bool)):
            raise ValueError(f"{label}: metadata {key!r} = {value!r} must be a str, int, float or bool")
    return AddedText(source_id, text, extra, language)


def checked_batch(ids: object, texts: object, metadatas: object = None) -> list[AddedText]:
    """``add_documents``' arguments as texts to ingest, once the whole batch is valid:
    sequences of equal length, unique ids, and each text by ``checked_source`` (the id
    is its source id). Nothing is written before this returns."""
    for name, given in (("ids", ids), ("texts", texts), ("metadatas", metadatas)):
        if given is None and name == "metadatas":
            continue
        if isinstance(given, (str, bytes)) or not isinstance(given, Sequence):
            raise ValueError(f"{name} must be a list, got {type(given).__name__}")
    assert isinstance(ids, Sequence) and isinstance(texts, Sequence)
    extras = list(metadatas) if isinstance(metadatas, Sequence) else [None] * len(ids)
    if metadatas is None and len(ids) != len(texts):
        raise ValueError(f"ids and texts differ in length: {len(ids)}, {len(texts)}")
    if not (len(ids) == len(texts) == len(extras)):
        raise ValueError(f"ids, texts and metadatas differ in length: {len(ids)}, {len(texts)}, "
                         f"{len(extras)}")
    seen: set[str] = set()
    checked = []
    for doc_id, text, metadata in zip(ids, texts, extras):
        added = checked_source(doc_id, text, metadata)
        if added.source_id in seen:
            raise ValueError(f"source {added.source_id!r} appears more than once in ids")
        seen.add(added.source_id)
        checked.append(added)
    return checked


def checked_source_ids(ids: object) -> list[str]:
    """The source ids to delete, once each is a non-empty string (ValueError naming the
    first that is not; a lone string is refused: it is not a list of ids)."""
    if isinstance(ids, (str, bytes)) or not isinstance(ids, Sequence):
        raise ValueError(f"ids must be a list of source ids, got {type(ids).__name__}")
    for source_id in ids:
        if not isinstance(source_id, str) or not source_id.strip():
            raise ValueError(f"source id must be a non-empty string, got {source_id!r}")
    return list(ids)
