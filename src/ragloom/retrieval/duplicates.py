"""One slot per text: chunks with identical text in several files (vendored copies,
generated files, licence headers) come back as one result, the best-ranked, carrying every
path that holds the text in ``metadata["paths"]`` (its own first) and the other chunks'
ids in ``metadata["duplicate_ids"]``."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ragloom.types import Metadata, SearchResult

#: content hashes -> (id, metadata) of every stored chunk with one of those texts.
CopiesOf = Callable[[list[str]], list[tuple[str, Metadata]]]


def collapse_duplicates(results: Sequence[SearchResult], copies_of: CopiesOf) -> list[SearchResult]:
    """``results`` (best first) without later results whose text an earlier one has."""
    kept: list[SearchResult] = []
    seen: set[str] = set()
    for result in results:
        digest = result.metadata.get("content_hash")
        if digest is not None:
            if digest in seen:
                continue
            seen.add(str(digest))
        kept.append(result)
    holders: dict[str, list[tuple[str, Metadata]]] = {}
    for doc_id, meta in copies_of(sorted(seen)) if seen else []:
        holders.setdefault(str(meta.get("content_hash")), []).append((doc_id, meta))
    for result in kept:
        digest = result.metadata.get("content_hash")
        copies = [(doc_id, meta) for doc_id, meta in holders.get(str(digest), [])
                  if doc_id != result.id] if digest is not None else []
        if not copies:
            continue
        own = result.metadata.get("path")
        others = sorted({str(meta["path"]) for _, meta in copies if "path" in meta} - {own})
        result.metadata["paths"] = [str(own), *others] if own is not None else others  # type: ignore[assignment]
        result.metadata["duplicate_ids"] = ",".join(sorted(doc_id for doc_id, _ in copies))
    return kept
