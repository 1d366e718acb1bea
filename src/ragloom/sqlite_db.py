"""SQLite as ragloom uses it: one autocommit connection shared by threads behind a lock,
WAL on disk so several processes can read and write, explicit immediate transactions."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def connect(path: Path | None, synchronous: str = "FULL", read_only: bool = False) -> sqlite3.Connection:
    """A connection to ``path`` (in memory when None), WAL mode on disk; ``read_only``
    opens an existing database without the right to change it."""
    if read_only and path is not None:
        return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=60.0,
                               check_same_thread=False, isolation_level=None)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(":memory:" if path is None else str(path), timeout=60.0,
                                 check_same_thread=False, isolation_level=None)
    if path is not None:
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute(f"PRAGMA synchronous={synchronous}")
    return connection


@contextmanager
def transaction(connection: sqlite3.Connection, lock: threading.Lock) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE ... COMMIT, rolled back on any error."""
    with lock:
        connection.execute("BEGIN IMMEDIATE")
        try:
            yield connection
            connection.execute("COMMIT")
        except BaseException:
            connection.execute("ROLLBACK")
            raise
