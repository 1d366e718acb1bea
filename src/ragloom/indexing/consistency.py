"""Checking that store, BM25 index and manifest agree, and recovering from a crash.

``recover_interrupted`` runs when an engine opens: every file the journal says was being
written when the process died loses its chunks and its manifest record, so the next
indexing run indexes it again (its embeddings come from the cache, not the model).
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

from ragloom.indexing.manifest import ManifestStore, source_key
from ragloom.indexing.unembedded import unembedded_of
from ragloom.retrieval.sparse_base import SparseBackend
from ragloom.stores.base import VectorStore
from ragloom.tenancy import tenant_of_id

logger = logging.getLogger("ragloom")
_PAGE = 2000


@dataclass
class VerifyReport:
    """The outcome of ``RAGEngine.verify()``: ``ok`` when ``problems`` is empty."""

    files: int = 0
    chunks: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "ok": self.ok}


def recover_interrupted(store: VectorStore, sparse: SparseBackend, manifest: ManifestStore) -> list[str]:
    """Undo half-written files left in the journal; returns their paths."""
    pending = manifest.pending()
    if not pending:
        return []
    records = manifest.records()
    for path, ids in pending.items():
        # The journal lists every id being written for the file, the record the ids
        # written before: together, every chunk of the file the store can hold.
        doomed = set(ids) | set(records[path].chunk_ids if path in records else ())
        store.delete(sorted(doomed))
        sparse.remove(sorted(doomed))
    store.persist()
    sparse.persist()
    manifest.write(removed=list(pending))
    logger.warning("recovered from an interrupted indexing run: %d file(s) will be indexed again: %s",
                   len(pending), ", ".join(sorted(pending)[:10]))
    return sorted(pending)


def damaged_file_problems(store: VectorStore, sparse: SparseBackend) -> list[str]:
    """Every byte of the store's and BM25 index's files checked against their checksums,
    for the parts that keep files and can check them (``verify_files``): one message per
    damaged file, naming it, the array and the rebuild."""
    return store.verify_files() + sparse.verify_files()


def verify_index(store: VectorStore, sparse: SparseBackend, manifest: ManifestStore) -> VerifyReport:
    """Every byte of the store's and BM25 index's files matching their checksums (for the
    parts that keep files and can check them: ``verify_files``), every stored file chunk
    belonging to a known file version, no orphans or duplicates, manifest ids all stored,
    BM25 index holding exactly the stored ids."""
    records = manifest.records()
    waiting = set(rows.ids()) if (rows := unembedded_of(manifest)) else set()  # in BM25, no vector yet
    report = VerifyReport(files=len(records))
    report.problems += damaged_file_problems(store, sparse)
    if report.problems:  # the checks below would read the damaged bytes
        return report
    ids = store.ids()
    report.chunks = len(ids)
    expected = {cid: path for path, record in records.items() for cid in record.chunk_ids}
    positions: Counter[tuple[str, object]] = Counter()
    for start in range(0, len(ids), _PAGE):
        for chunk in store.get(ids[start:start + _PAGE]):
            meta = chunk.metadata
            if tenant_of_id(chunk.id) is not None:
                continue  # a tenant's, seen from the whole index: its records are the tenant's
            if meta.get("source") == "file":
                path = str(meta.get("path"))
            elif meta.get("source") == "text":
                path = source_key(str(meta.get("source_id")))
            else:
                continue
            positions[(path, meta.get("chunk_index"))] += 1
            record = records.get(path)
            if record is None:
                report.problems.append(f"orphan chunk {chunk.id}: file {path!r} is not in the manifest")
            elif expected.get(chunk.id) != path:
                report.problems.append(f"orphan chunk {chunk.id}: not among the chunks of {path!r}")
            elif meta.get("file_hash") != record.sha256[:16]:
                report.problems.append(f"chunk {chunk.id} of {path!r} comes from another version "
                                       f"of the file")
    report.problems += [f"duplicate chunks at {path!r} index {index}"
                        for (path, index), count in positions.items() if count > 1]
    stored = set(ids) | waiting
    report.problems += [f"manifest lists chunk {cid} of {path!r}, which is not stored"
                        for cid, path in expected.items() if cid not in stored]
    pending = manifest.pending()
    if pending:
        report.problems.append(f"unrecovered interrupted write of {sorted(pending)}")
    sparse_ids = {i for i in sparse.ids() if tenant_of_id(i) is None}
    stored = {i for i in stored if tenant_of_id(i) is None}  # tenants' chunks: their BM25
    if sparse_ids != stored:
        report.problems.append(f"BM25 index and store differ: {len(sparse_ids - stored)} extra, "
                               f"{len(stored - sparse_ids)} missing ids")
    return report
