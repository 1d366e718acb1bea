"""The writer lock of a Postgres index: a session advisory lock keyed by the index's
table, held on a connection of its own while the writing engine is open. The server drops
it when that connection ends (a crashed writer never leaves a stale lock). A second writer
gets IndexLockedError naming the holder's host and pid (its connection's
``application_name``), or waits when asked to."""

from __future__ import annotations

import os
import socket

from ragloom.errors import IndexLockedError, StoreError
from ragloom.stores.postgres.connection import Database
from ragloom.stores.postgres.settings import Tables

#: Creating or dropping tables: a key apart from the writer lock (xored with ``lock_key``).
DDL_KEY = 1 << 41


def lock_key(tables: Tables) -> int:
    """A stable advisory-lock key for an index (its schema-qualified table name)."""
    import zlib

    return zlib.crc32(f"ragloom:{tables.label}".encode()) | (1 << 40)


class PostgresIndexLock:
    """The interface of ``locking.ProcessLock`` (``acquire``/``release``) for a shared index."""

    def __init__(self, url: str, tables: Tables) -> None:
        self.tables = tables
        self.key = lock_key(tables)
        self.holder = f"ragloom writer host {socket.gethostname()} pid {os.getpid()}"
        self._db = Database(url, self.holder[:63])
        self._held = False

    def acquire(self, shared: bool = False, blocking: bool = False,
                wait_seconds: float = 0.0) -> None:
        """Take the lock, waiting up to ``wait_seconds`` (forever when ``blocking``) for
        another writer to finish; ``shared`` (a reader) takes nothing: readers see
        committed versions."""
        if shared or self._held:
            return
        if blocking or wait_seconds > 0:
            timeout = "0" if blocking else f"{int(wait_seconds * 1000)}ms"
            try:
                with self._db.cursor("index lock") as cursor:
                    cursor.execute("SELECT set_config('lock_timeout', %s, false)", (timeout,))
                    cursor.execute("SELECT pg_advisory_lock(%s)", (self.key,))
            except StoreError as exc:
                if "LockNotAvailable" not in str(exc):
                    raise
                self._refuse(f" (waited {wait_seconds:g} s)")
        elif not self._db.execute("index lock", "SELECT pg_try_advisory_lock(%s)", (self.key,))[0][0]:
            self._refuse("")
        self._held = True

    def _refuse(self, waited: str) -> None:
        raise IndexLockedError(
            f"the index at {self._db.where} table {self.tables.label} is being written by "
            f"{self._holder()}{waited}; close that engine first, or set "
            f"[rag.vector_store.postgres] wait_for_writer_seconds (readers need no lock)")

    def _holder(self) -> str:
        rows = self._db.execute(
            "index lock", "SELECT a.application_name, a.client_addr, a.pid FROM pg_locks l JOIN "
            "pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted AND "
            "l.classid = %s AND l.objid = %s AND l.objsubid = 1",
            (self.key >> 32, self.key & 0xFFFFFFFF))
        if not rows:
            return "another process"
        name, address, backend = rows[0]
        where = f" (connected from {address})" if address else ""
        return f"{name or 'a client'}{where}, server backend {backend}"

    def release(self) -> None:
        if self._held:
            self._held = False
            self._db.close()  # ending the session releases the advisory lock

    @property
    def held(self) -> bool:
        return self._held
