"""Checking texts added through the API (``ingest_text``, ``add_documents``) before
anything is embedded or written: one set of rules, errors that name the culprit."""

from __future__ import annotations

from collections.abc import Sequence

from ragloom.types import Metadata

#: Chunk metadata keys ragloom sets; an ingested text's metadata may not set them.
RESERVED_KEYS = frozenset({"path", "chunk_index", "start_line", "end_line", "start_char", "end_char",
                           "source", "source_id", "file_hash", "content_hash", "embedding_model"})


def checked_text(label: str, text: object, metadata: Metadata | None,
                 reserved: frozenset[str] = frozenset()) -> Metadata:
    """A copy of ``metadata`` once ``text`` is a string and every metadata value a scalar
    (str, int, float, bool) under a string key not in ``reserved``; else ValueError
    starting with ``label`` (which text) and naming the key and value."""
    if not isinstance(text, str):
        raise ValueError(f"{label}: text must be a string, got {type(text).__name__}")
    extra = dict(metadata or {})
    for key, value in extra.items():
        if key in reserved:
            raise ValueError(f"{label}: metadata key {key!r} is set by ragloom")
        if not isinstance(key, str) or not isinstance(value, (str, int, float, bool)):
            raise ValueError(f"{label}: metadata {key!r} = {value!r} must be a str, int, float or bool")
    return extra


def checked_source(source_id: object, text: object, metadata: Metadata | None,
                   language: object) -> Metadata:
    """The metadata of a text for ``ingest_text``, after checking every argument."""
    if not isinstance(source_id, str) or not source_id.strip():
        raise ValueError(f"source_id must be a non-empty string, got {source_id!r}")
    label = f"source {source_id!r}"
    if language is not None and not isinstance(language, str):
        raise ValueError(f"{label}: language must be a string, got {language!r}")
    return checked_text(label, text, metadata, RESERVED_KEYS)


def checked_documents(ids: Sequence[object], texts: Sequence[object],
                      metadatas: Sequence[Metadata] | None) -> list[Metadata]:
    """The metadata of each document for ``add_documents``, after checking the batch:
    equal lengths, unique non-empty ids, and each text by ``checked_text``."""
    given = list(metadatas) if metadatas is not None else [{} for _ in ids]
    if not (len(ids) == len(texts) == len(given)):
        raise ValueError(f"ids, texts and metadatas differ in length: {len(ids)}, {len(texts)}, {len(given)}")
    seen: set[object] = set()
    checked = []
    for index, (doc_id, text, metadata) in enumerate(zip(ids, texts, given)):
        if not isinstance(doc_id, str) or not doc_id:
            raise ValueError(f"document {index}: id must be a non-empty string, got {doc_id!r}")
        if doc_id in seen:
            raise ValueError(f"document id {doc_id!r} appears more than once")
        seen.add(doc_id)
        checked.append(checked_text(f"document {doc_id!r}", text, metadata))
    return checked
