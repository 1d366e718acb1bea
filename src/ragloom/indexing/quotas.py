"""Limits per collection and per tenant (``[rag.limits]``): a write that would take the
collection past ``max_chunks``, ``max_files`` or ``max_bytes`` (every tenant's data
together), or a tenant's share past ``max_chunks_per_tenant``, ``max_files_per_tenant`` or
``max_bytes_per_tenant`` (that tenant's data only), is refused with ``QuotaExceededError``
before anything of it is written, so the index stays as it was.

The would-be totals are computed from the manifest and what the call changes: each file or
text it writes counts its new chunks and bytes minus those of the version it replaces,
each one it removes (a deleted file, one now skipped) counts minus its own. A call that
does not raise a figure (it replaces, shrinks or removes) is never refused, so a
collection over a lowered limit can still be trimmed. An indexing run learns what it will
write by reading and chunking its changed files before the run (``plan_files``); the run
then takes what the check read (up to ``KEEP_BYTES`` of files) instead of reading it
again, so only what is over that is read twice, and only a config with a limit pays.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ragloom.config import RAGConfig
from ragloom.config.limits import LimitsConfig
from ragloom.errors import QuotaExceededError
from ragloom.indexing.collection_records import whole_collection
from ragloom.indexing.manifest import FileRecord
from ragloom.indexing.path_names import PathNames
from ragloom.indexing.pending import vanished_files
from ragloom.indexing.read_ahead import read_ahead
from ragloom.indexing.reading import SkipFile

#: Bytes of files (by size on disk) whose reading and chunking the check keeps for the run.
KEEP_BYTES = 256 * 1024 * 1024
#: The figures a collection limit bounds, by limit key.
FIGURES = {"max_chunks": "chunks", "max_files": "files", "max_bytes": "bytes"}
#: The limit of each tenant's share of a figure, by the collection limit's key.
PER_TENANT = {key: f"{key}_per_tenant" for key in FIGURES}


class Records(Protocol):
    """What of a manifest (SQLite or Postgres) a quota reads."""

    def records(self) -> dict[str, FileRecord]: ...


@dataclass(frozen=True)
class Usage:
    """What a collection holds: sources (files and added texts), chunks, source bytes."""

    files: int = 0
    chunks: int = 0
    bytes: int = 0


@dataclass(frozen=True)
class Change:
    """A file or text a call writes: its size and chunk count (None: as its previous version)."""

    key: str
    size: int
    chunks: int | None


def usage_of(records: Mapping[str, FileRecord]) -> Usage:
    """The usage the manifest records (a record marked for re-chunking counts no bytes)."""
    return _total({key: (max(r.size, 0), len(r.chunk_ids)) for key, r in records.items()})


def _total(figures: Mapping[str, tuple[int, int]]) -> Usage:
    """Usage of sources given as name -> (bytes, chunks)."""
    return Usage(len(figures), sum(chunks for _, chunks in figures.values()),
                 sum(size for size, _ in figures.values()))


def usage_against_limits(limits: LimitsConfig, records: Mapping[str, FileRecord],
                         whole: Mapping[str, FileRecord] | None = None,
                         tenant: str | None = None) -> dict[str, dict[str, int]]:
    """For ``status``: each limit that is set, with what is used of it: the collection's
    against the ``whole`` collection's records (default ``records``), with a ``tenant``
    each ``*_per_tenant`` one against that tenant's ``records``."""
    usage, active = usage_of(records), limits.active()
    total = usage if whole is None else usage_of(whole)
    shown = {key: {"used": getattr(total, FIGURES[key]), "limit": active[key]}
             for key in FIGURES if key in active}
    if tenant is not None:
        shown |= {PER_TENANT[key]: {"used": getattr(usage, FIGURES[key]), "limit": active[name]}
                  for key, name in PER_TENANT.items() if name in active}
    return shown


class Quota:
    """The limits of one index, checked against its manifest: the collection's against the
    ``whole`` collection's records (every tenant's; default: the manifest's), and with a
    ``tenant`` (the manifest is that tenant's share) each ``*_per_tenant`` one."""

    def __init__(self, limits: LimitsConfig, collection: str, manifest: Records,
                 tenant: str | None = None, whole: Records | None = None) -> None:
        active = limits.active()
        self.limits = {key: value for key, value in active.items() if key in FIGURES}
        self.tenant_limits = {} if tenant is None else {
            key: active[name] for key, name in PER_TENANT.items() if name in active}
        self.config = limits
        self.collection = collection
        self.manifest = manifest
        self.tenant = tenant
        self.whole = whole if whole is not None else manifest
        #: What the last check read and chunked, by name, for the run to take (``take``).
        self.planned: dict[str, Prepared | SkipFile] = {}

    @classmethod
    def unlimited(cls, manifest: Records) -> Quota:
        return cls(LimitsConfig(), "", manifest)

    def take(self, name: str) -> Prepared | SkipFile | None:
        """The file ``name`` as the check read and chunked it (once), or None."""
        return self.planned.pop(name, None)

    @property
    def limited(self) -> bool:
        return bool(self.limits or self.tenant_limits)

    def usage(self) -> dict[str, dict[str, int]]:
        """For ``status``: usage against each limit that is set (``usage_against_limits``)."""
        if not self.config.active():
            return {}
        whole = self.whole.records() if self.limits and self.whole is not self.manifest else None
        return usage_against_limits(self.config, self.manifest.records(), whole, self.tenant)

    def check(self, changes: Iterable[Change], removed: Iterable[str] = ()) -> None:
        """Raise QuotaExceededError when writing ``changes`` and removing ``removed`` would
        take a figure past its limit (and raise it)."""
        if not self.limited:
            return
        records = self.manifest.records()
        current = usage_of(records)
        after = {key: (max(r.size, 0), len(r.chunk_ids)) for key, r in records.items()}
        for key in removed:
            after.pop(key, None)
        for change in changes:
            previous = records.get(change.key)
            chunks = change.chunks if change.chunks is not None else (
                len(previous.chunk_ids) if previous is not None else 0)
            after[change.key] = (change.size, chunks)
        would_be = _total(after)
        scope = f"collection {self.collection!r}"
        for key, limit in self.tenant_limits.items():  # the tenant's share
            now, then = getattr(current, FIGURES[key]), getattr(would_be, FIGURES[key])
            if then > limit and then > now:
                raise QuotaExceededError(PER_TENANT[key], scope, now, then - now, limit, self.tenant)
        if not self.limits:
            return
        # The whole collection changes by what the writer's share changes.
        whole = current if self.whole is self.manifest else usage_of(self.whole.records())
        for key, limit in self.limits.items():
            now = getattr(whole, FIGURES[key])
            adding = getattr(would_be, FIGURES[key]) - getattr(current, FIGURES[key])
            if now + adding > limit and adding > 0:
                raise QuotaExceededError(key, scope, now, adding, limit, self.tenant)


def quota_for(config: RAGConfig, manifest: Records, tenant: str | None) -> Quota:
    """The quota of an index of ``config`` whose manifest is ``manifest`` (``tenant``'s
    share, or the untenanted one): the collection's limits count every tenant's records."""
    whole = whole_collection(manifest, tenant) if config.limits.active() else manifest
    return Quota(config.limits, config.vector_store.collection_name, manifest, tenant, whole)


class Prepared(Protocol):
    """What reading and chunking a file gives (``indexer._Prepared``)."""

    @property
    def chunks(self) -> Sequence[object] | None: ...  # None: content as its previous version
    @property
    def content(self) -> Sized: ...


class Sized(Protocol):
    @property
    def size(self) -> int: ...


#: Reads and chunks a file as the run would: (path, name, previous record, size on disk,
#: mtime_ns) -> what it holds, or why it is skipped.
Prepare = Callable[[Path, str, "FileRecord | None", int, int], "Prepared | SkipFile"]


def plan_files(quota: Quota | None, files: Sequence[Path], names: PathNames, prepare: Prepare,
               root: Path | None = None, skipped: Iterable[str] = ()) -> None:
    """Check a run over ``files`` before it writes: each file the run would read (new or
    changed) is read and chunked here to count it; ``skipped`` files (by name) and, under
    ``root``, files gone from disk are counted as removed."""
    if quota is None or not quota.limited:
        return
    quota.planned = {}
    records = quota.manifest.records()
    gone = [key for key in skipped if key in records]
    gone += [] if root is None else vanished_files(root, names, records)
    to_read: list[tuple[Path, str, FileRecord | None, int, int]] = []
    for path in files:
        relative = names.name(path)
        previous = records.get(relative)
        try:
            stat = path.stat()
        except OSError:  # the run skips it, removing its previous version
            gone += [relative] if previous is not None else []
            continue
        if previous is None or not previous.unchanged(stat.st_size, stat.st_mtime_ns):
            to_read.append((path, relative, previous, stat.st_size, stat.st_mtime_ns))
    changes: list[Change] = []
    kept = 0
    # closed here, not by the garbage collector at some later point on another thread
    with closing(read_ahead(to_read, lambda item: prepare(*item), lambda item: item[3])) as outcomes:
        for (_, relative, previous, size, _), outcome in zip(to_read, outcomes):
            if kept + size <= KEEP_BYTES:
                quota.planned[relative], kept = outcome, kept + size
            if isinstance(outcome, SkipFile):
                gone += [relative] if previous is not None else []
            else:
                count = None if outcome.chunks is None else len(outcome.chunks)
                changes.append(Change(relative, outcome.content.size, count))
    try:
        quota.check(changes, gone)
    except QuotaExceededError:
        quota.planned = {}
        raise
