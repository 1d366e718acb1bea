"""The manifest of a Postgres index: file versions in ``<table>_files``, settings in
``<table>_info``. ``begin`` opens the writer's transaction and ``write`` commits it, so the
chunks, postings and records of a window of files land together or not at all (a crash
rolls the transaction back: there is never a journal to recover)."""

from __future__ import annotations

import json
from collections.abc import Iterable

from ragloom.indexing.manifest import RECHUNK, SOURCE_KEY_PREFIX, FileRecord
from ragloom.stores.postgres.connection import Database
from ragloom.stores.postgres.settings import Tables

_SETTING = "setting:"


class PostgresManifest:
    """The interface of ``indexing.manifest.Manifest``, on the writer's connection."""

    def __init__(self, db: Database, tables: Tables) -> None:
        self.db, self.tables = db, tables
        self.path = None

    def get(self, path: str) -> FileRecord | None:
        rows = self.db.execute("manifest", f"SELECT {_COLUMNS} FROM {self.tables.files} "
                               "WHERE path = %s", (path,))
        return _record(rows[0]) if rows else None

    def records(self) -> dict[str, FileRecord]:
        rows = self.db.execute("manifest", f"SELECT {_COLUMNS} FROM {self.tables.files}")
        return {row[0]: _record(row) for row in rows}

    def versions(self) -> dict[str, tuple[int, int]]:
        """Each indexed file's (size, mtime_ns), added texts left out (see ``Manifest``)."""
        rows = self.db.execute("manifest", f"SELECT path, size, mtime_ns FROM {self.tables.files} "
                               "WHERE left(path, %s) <> %s", (len(SOURCE_KEY_PREFIX), SOURCE_KEY_PREFIX))
        return {row[0]: (int(row[1]), int(row[2])) for row in rows}

    def begin(self, touched: dict[str, Iterable[str]]) -> None:
        """Open the transaction the window's writes join (``write`` commits it); one a failed
        window left open is rolled back first, so no window ever commits another's writes."""
        self.db.rollback()
        self.db.begin()

    def pending(self) -> dict[str, list[str]]:
        """Always empty: an interrupted window was rolled back by the server."""
        return {}

    def write(self, records: Iterable[FileRecord] = (), removed: Iterable[str] = ()) -> None:
        """Add/replace ``records``, drop ``removed`` and commit the window's transaction."""
        rows = [(r.path, r.size, r.mtime_ns, r.sha256, json.dumps(list(r.chunk_ids)), r.indexed_at)
                for r in records]
        removed = list(removed)
        with self.db.transaction("manifest write"), self.db.cursor("manifest write") as cursor:
            if rows:
                cursor.executemany(
                    f"INSERT INTO {self.tables.files} VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT "
                    "(path) DO UPDATE SET size = excluded.size, mtime_ns = excluded.mtime_ns, "
                    "sha256 = excluded.sha256, chunk_ids = excluded.chunk_ids, "
                    "indexed_at = excluded.indexed_at", rows)
            if removed:
                cursor.execute(f"DELETE FROM {self.tables.files} WHERE path = ANY(%s)", (removed,))
        self.db.commit()

    def forget_versions(self) -> None:
        """Mark every file for re-chunking while keeping its hash and chunk ids."""
        self.db.execute("manifest", f"UPDATE {self.tables.files} SET size = {RECHUNK}, "
                        f"mtime_ns = {RECHUNK}")

    def clear(self) -> None:
        self.db.execute("manifest", f"DELETE FROM {self.tables.files}")

    def get_setting(self, key: str) -> str | None:
        rows = self.db.execute("manifest", f"SELECT value FROM {self.tables.info} WHERE key = %s",
                               (_SETTING + key,))
        return rows[0][0] if rows else None

    def set_setting(self, key: str, value: str) -> None:
        self.db.execute("manifest", f"INSERT INTO {self.tables.info} VALUES (%s, %s) ON CONFLICT "
                        "(key) DO UPDATE SET value = excluded.value", (_SETTING + key, value))

    def __len__(self) -> int:
        return int(self.db.execute("manifest", f"SELECT count(*) FROM {self.tables.files}")[0][0])

    def close(self) -> None:
        """The store closes the connection."""


_COLUMNS = "path, size, mtime_ns, sha256, chunk_ids, indexed_at"


def _record(row: tuple) -> FileRecord:
    path, size, mtime_ns, sha256, chunk_ids, indexed_at = row
    return FileRecord(path, int(size), int(mtime_ns), sha256, tuple(chunk_ids), float(indexed_at))
