"""SQLite as ragloom uses it: one autocommit connection shared by threads behind a lock,
WAL on disk so several processes can read and write, explicit immediate transactions."""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def connect(path: Path | None, synchronous: str = "FULL", read_only: bool = False,
            journal_mode: str = "WAL") -> sqlite3.Connection:
    """A connection to ``path`` (in memory when None), WAL mode on disk (other processes
    read while one writes); ``read_only`` opens an existing database without the right to
    change it. A database one process uses at a time may take a rollback journal
    (``journal_mode="TRUNCATE"``): pages appended by a transaction are then written once,
    where WAL writes every page twice (to the log, then back into the file)."""
    if read_only and path is not None:
        return _connect_read_only(path)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(":memory:" if path is None else str(path), timeout=60.0,
                                 check_same_thread=False, isolation_level=None)
    if path is not None:
        connection.execute(f"PRAGMA journal_mode={journal_mode}")
        connection.execute(f"PRAGMA synchronous={synchronous}")
    return connection


logger = logging.getLogger("ragloom")


def _connect_read_only(path: Path) -> sqlite3.Connection:
    """``path`` opened read-only. A WAL database needs its ``-shm`` file, which SQLite cannot
    create in a read-only folder or file system: there (nobody can be writing) it is opened
    as immutable, which creates nothing."""
    uri = path.resolve().as_uri()
    connection = sqlite3.connect(f"{uri}?mode=ro", uri=True, timeout=60.0,
                                 check_same_thread=False, isolation_level=None)
    try:
        connection.execute("PRAGMA schema_version").fetchone()
        return connection
    except sqlite3.OperationalError:
        connection.close()
        if os.access(path.parent, os.W_OK) and not _read_only_file_system(path.parent):
            raise
    return sqlite3.connect(f"{uri}?mode=ro&immutable=1", uri=True, timeout=60.0,
                           check_same_thread=False, isolation_level=None)


def _read_only_file_system(folder: Path) -> bool:
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except (AttributeError, OSError):  # no statvfs (Windows)
        return False


def close(connection: sqlite3.Connection) -> None:
    """Close ``connection``. A writer leaves its WAL database in rollback-journal mode when
    no other connection has it open: a reader of a WAL database needs the ``-shm`` file
    (and a ``-wal``), creates them when they are missing and, being read-only, cannot
    remove them; a rollback-journal database is read with file locks alone, so reading
    the idle index creates and changes nothing. While another connection has the database
    open SQLite refuses the switch at once (it stays WAL, its readers unharmed) and the
    last writer to close switches it; the next writer's ``connect`` turns WAL back on."""
    try:
        if connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal":
            connection.execute("PRAGMA journal_mode=DELETE")
    except sqlite3.Error:  # others have it open, or this connection may not write
        pass
    connection.close()


def is_damaged(exc: sqlite3.DatabaseError) -> bool:
    """Whether SQLite says the file is no database or a damaged one (not: busy, locked,
    read-only, disk full)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (11, 26)  # SQLITE_CORRUPT, SQLITE_NOTADB
    message = str(exc)
    return "malformed" in message or "not a database" in message


def set_aside(path: Path) -> Path:
    """Move a damaged database (and its WAL or rollback journal files) to
    ``<name>.corrupt-<time>`` beside it, so it can be looked at and a new one started (a
    journal left behind would be rolled into the new file); nothing is deleted. Returns the
    new name."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    aside = path.with_name(f"{path.name}.corrupt-{stamp}-{os.getpid()}")
    for suffix in ("-wal", "-shm", "-journal", ""):
        part = path.with_name(path.name + suffix)
        if part.exists():
            os.replace(part, aside.with_name(aside.name + suffix))
    logger.warning("set the damaged database %s aside as %s", path, aside.name)
    return aside


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
