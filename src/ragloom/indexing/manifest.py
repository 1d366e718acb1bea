"""The manifest: which version of each file is indexed, and under which chunk ids.

It lets a re-index skip unchanged files without reading them (size + mtime), skip
files whose content hash is unchanged, and delete exactly the chunks a file no longer has.
Stored in SQLite beside a persistent store, in memory beside an in-memory one.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ragloom.errors import REBUILD_HINT, CorruptIndexError, IndexNotFoundError
from ragloom.sqlite_db import close, connect, is_damaged, set_aside, transaction

#: Size and mtime of a record that must be re-chunked even if its content is unchanged.
RECHUNK = -1
#: Key prefix of texts added with ``ingest_text``; a normalized relative path never contains
#: "//", so a text's key can never be a file's.
SOURCE_KEY_PREFIX = "ragloom-source://"


def source_key(source_id: str) -> str:
    """The manifest key of an ingested text."""
    return SOURCE_KEY_PREFIX + source_id


#: Nanoseconds within which two writes of a file may get the same mtime: file systems keep
#: from 1 ns (ext4, APFS) to 2 s (FAT), and the kernel stamps with a coarse clock.
MTIME_GRANULARITY_NS = 2_000_000_000


@dataclass(frozen=True)
class FileRecord:
    """One indexed file version."""

    path: str
    size: int
    mtime_ns: int
    sha256: str
    chunk_ids: tuple[str, ...]
    indexed_at: float

    def unchanged(self, size: int, mtime_ns: int) -> bool:
        """Whether a file with this size and mtime can be taken as this version unread.
        Not when its mtime is within the mtime granularity of the indexing ("racy git"): a
        rewrite of the same size just after it was read may have kept the same mtime, so
        such a file is read and hashed again (and recorded anew, after which it is not)."""
        return ((self.size, self.mtime_ns) == (size, mtime_ns)
                and mtime_ns + MTIME_GRANULARITY_NS < int(self.indexed_at * 1e9))


class ManifestStore(Protocol):
    """What the indexer, the engine and the checks use of a manifest: ``Manifest`` here,
    or the one a store keeps itself (``indexing.state.IndexState``)."""

    def get(self, path: str) -> FileRecord | None: ...

    def records(self) -> dict[str, FileRecord]: ...

    def versions(self) -> dict[str, tuple[int, int]]: ...

    def begin(self, touched: dict[str, Iterable[str]]) -> None: ...

    def pending(self) -> dict[str, list[str]]: ...

    def write(self, records: Iterable[FileRecord] = (), removed: Iterable[str] = ()) -> None: ...

    def forget_versions(self) -> None: ...

    def clear(self) -> None: ...

    def get_setting(self, key: str) -> str | None: ...

    def set_setting(self, key: str, value: str) -> None: ...

    def __len__(self) -> int: ...

    def close(self) -> None: ...


class Manifest:
    """File records plus a few key/value settings (e.g. the index signature)."""

    def __init__(self, path: Path | None = None, read_only: bool = False) -> None:
        self.path = path
        self.read_only = read_only
        self._lock = threading.Lock()
        if read_only and (path is None or not path.is_file()):
            raise IndexNotFoundError(f"no index manifest at {path}")
        try:
            # synchronous=FULL: the journal must survive a crash
            self._db = connect(path, read_only=read_only)
            if not read_only:
                self._create_tables()
            # a damaged page shows here rather than half-way through a run
            verdict = self._db.execute("PRAGMA quick_check(1)").fetchone()[0]
            if verdict != "ok":
                detail = " ".join(str(verdict).split())
                raise sqlite3.DatabaseError(f"database disk image is malformed: {detail}")
        except sqlite3.DatabaseError as exc:
            if hasattr(self, "_db"):
                self._db.close()
            if not is_damaged(exc):
                raise
            raise CorruptIndexError(
                f"index manifest {path} is damaged ({exc}); {REBUILD_HINT}",
                None if read_only or path is None else lambda: set_aside(path)) from None

    def _create_tables(self) -> None:
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, size INTEGER, "
            "mtime_ns INTEGER, sha256 TEXT, chunk_ids TEXT, indexed_at REAL)"
        )
        self._db.execute("CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT)")
        # The journal: files whose chunks are being written; see ``begin``.
        self._db.execute("CREATE TABLE IF NOT EXISTS pending (path TEXT PRIMARY KEY, chunk_ids TEXT)")
        # Chunks in BM25 whose vectors are not stored yet (``indexing.unembedded``).
        self._db.execute("CREATE TABLE IF NOT EXISTS unembedded (seq INTEGER PRIMARY KEY AUTOINCREMENT, "
                         "id TEXT UNIQUE NOT NULL, path TEXT NOT NULL, text TEXT NOT NULL, "
                         "metadata TEXT NOT NULL)")
        self._db.execute("CREATE INDEX IF NOT EXISTS unembedded_path ON unembedded (path)")

    def get(self, path: str) -> FileRecord | None:
        with self._lock:
            row = self._db.execute("SELECT * FROM files WHERE path = ?", (path,)).fetchone()
        return None if row is None else _record(row)

    def records(self) -> dict[str, FileRecord]:
        with self._lock:
            rows = self._db.execute("SELECT * FROM files").fetchall()
        return {row[0]: _record(row) for row in rows}

    def versions(self) -> dict[str, tuple[int, int]]:
        """Each indexed file's (size, mtime_ns), texts added through the API left out: what
        deciding pending work needs, without reading every record's chunk ids."""
        with self._lock:
            rows = self._db.execute("SELECT path, size, mtime_ns FROM files WHERE substr(path, 1, ?) "
                                    "!= ?", (len(SOURCE_KEY_PREFIX), SOURCE_KEY_PREFIX)).fetchall()
        return {path: (int(size), int(mtime_ns)) for path, size, mtime_ns in rows}

    def begin(self, touched: dict[str, Iterable[str]]) -> None:
        """Journal that the chunks of these files (old and new ids) are about to change in
        the store. ``write`` for a path ends its entry; an entry left by a crash tells
        ``pending`` which chunks may be half-written."""
        rows = [(path, json.dumps(sorted(set(ids)))) for path, ids in touched.items()]
        with self._transaction() as db:
            db.executemany("INSERT OR REPLACE INTO pending VALUES (?, ?)", rows)

    def pending(self) -> dict[str, list[str]]:
        with self._lock:
            rows = self._db.execute("SELECT path, chunk_ids FROM pending").fetchall()
        return {path: json.loads(ids) for path, ids in rows}

    def write(self, records: Iterable[FileRecord] = (), removed: Iterable[str] = ()) -> None:
        """Add/replace ``records`` and drop ``removed`` paths, ending their journal entries,
        in one transaction."""
        rows = [(r.path, r.size, r.mtime_ns, r.sha256, json.dumps(list(r.chunk_ids)), r.indexed_at)
                for r in records]
        removed = list(removed)
        finished = [(row[0],) for row in rows] + [(path,) for path in removed]
        with self._transaction() as db:
            db.executemany("INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?)", rows)
            db.executemany("DELETE FROM files WHERE path = ?", [(p,) for p in removed])
            db.executemany("DELETE FROM pending WHERE path = ?", finished)
            if removed:
                db.executemany("DELETE FROM unembedded WHERE path = ?", [(p,) for p in removed])

    def _transaction(self) -> AbstractContextManager[sqlite3.Connection]:
        return transaction(self._db, self._lock)

    def transaction(self) -> AbstractContextManager[sqlite3.Connection]:
        """One write transaction on the manifest's database (for the tables kept beside the
        file records, such as ``unembedded``)."""
        return self._transaction()

    def select(self, sql: str, parameters: Sequence[object] = ()) -> list[tuple]:
        """The rows of one query on the manifest's database."""
        with self._lock:
            return self._db.execute(sql, tuple(parameters)).fetchall()

    def has_table(self, name: str) -> bool:
        """Whether the database holds table ``name`` (a read-only manifest written by an
        older version may lack a newer table)."""
        with self._lock:
            return self._db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                                    (name,)).fetchone() is not None

    def forget_versions(self) -> None:
        """Mark every file for re-chunking (size -1) while keeping its hash and chunk ids."""
        with self._lock:
            self._db.execute(f"UPDATE files SET size = {RECHUNK}, mtime_ns = {RECHUNK}")

    def clear(self) -> None:
        with self._lock:
            self._db.execute("DELETE FROM files")
            self._db.execute("DELETE FROM pending")
            self._db.execute("DELETE FROM unembedded")

    def get_setting(self, key: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_setting(self, key: str, value: str) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO settings VALUES (?, ?)", (key, value))

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM files").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            close(self._db)


def _record(row: tuple) -> FileRecord:
    path, size, mtime_ns, sha256, chunk_ids, indexed_at = row
    return FileRecord(path, size, mtime_ns, sha256, tuple(json.loads(chunk_ids)), indexed_at)


@dataclass(frozen=True)
class ManifestSummary:
    """What ``ragloom status`` shows of a manifest without opening the index."""

    files: int
    last_indexed: float | None
    #: [provider, model, dimension] of the embedding the index was built with.
    signature: list
    #: The folders indexed, relative to base_dir.
    roots: list[str]
    #: Chunks waiting for their vectors (progressive indexing, ``indexing.unembedded``).
    unembedded: int = 0


def read_summary(path: Path) -> ManifestSummary | None:
    """The summary of the manifest at ``path`` in one read-only SQLite read (no lock
    taken), or None for one without the signature (an index never written to). A
    manifest without the tables raises sqlite3.Error."""
    database = connect(path, read_only=True)
    try:
        files, last = database.execute("SELECT COUNT(*), MAX(indexed_at) FROM files").fetchone()
        settings = dict(database.execute(
            "SELECT key, value FROM settings WHERE key IN ('embedding', 'roots')").fetchall())
        waiting = database.execute("SELECT name FROM sqlite_master WHERE name = 'unembedded'").fetchone()
        unembedded = database.execute("SELECT COUNT(*) FROM unembedded").fetchone()[0] if waiting else 0
    finally:
        database.close()
    if "embedding" not in settings:
        return None
    return ManifestSummary(int(files), last, json.loads(settings["embedding"]),
                           json.loads(settings.get("roots") or "[]"), int(unembedded))
