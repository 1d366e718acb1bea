"""Locks: a readers-writer lock inside a process, and an index lock between processes."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ragloom.errors import IndexLockedError


class ReadWriteLock:
    """Many readers or one writer; a waiting writer blocks new readers (no starvation)."""

    def __init__(self) -> None:
        self._condition = threading.Condition()
        self._readers = 0
        self._writer = False
        self._waiting_writers = 0

    @contextmanager
    def reading(self) -> Iterator[None]:
        with self._condition:
            while self._writer or self._waiting_writers:
                self._condition.wait()
            self._readers += 1
        try:
            yield
        finally:
            with self._condition:
                self._readers -= 1
                if not self._readers:
                    self._condition.notify_all()

    @contextmanager
    def writing(self) -> Iterator[None]:
        with self._condition:
            self._waiting_writers += 1
            while self._writer or self._readers:
                self._condition.wait()
            self._waiting_writers -= 1
            self._writer = True
        try:
            yield
        finally:
            with self._condition:
                self._writer = False
                self._condition.notify_all()


class ProcessLock:
    """A shared-or-exclusive lock between processes, on every desktop OS.

    ``filelock.ReadWriteLock`` keeps it in a small SQLite file: SQLite's own file locking
    (LockFileEx on Windows, POSIX locks elsewhere) does the work, the operating system
    drops it when a process dies, and two locks in one process conflict like two
    processes. The writer of an index holds ``<index_dir>/lock.sqlite`` exclusively while its
    engine is open and names its pid in ``lock.pid``, so a second writer gets a clear
    IndexLockedError. A reader never creates anything where it cannot write: in a
    read-only folder or file system (a container image, a shared mount) no writer can be at
    work either, so it reads without a lock.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        # ragloom before 0.2 wrote its pid into a plain file at ``path``, which SQLite cannot
        # open: the database has a name of its own, so an index from then still opens.
        self._database = path.with_name(path.name + ".sqlite")
        self._lock: Any = None

    def acquire(self, shared: bool = False, blocking: bool = False) -> None:
        """Take the lock (``shared`` for readers); without ``blocking``, a lock held by
        another process raises IndexLockedError naming it."""
        from filelock import ReadWriteLock, Timeout

        if shared and not writable(self.path.parent):
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        lock = ReadWriteLock(self._database, is_singleton=False)
        take = lock.acquire_read if shared else lock.acquire_write
        try:
            take(timeout=-1, blocking=blocking)
        except Timeout:
            lock.close()
            holder = _read_holder(self._pid_file())
            raise IndexLockedError(
                f"index at {self.path.parent} is locked by pid {holder}"
                f"{'' if shared else ' (or by processes reading it)'}; close that engine "
                f"first or use a Chroma server (vector_store.url) to share an index") from None
        if not (shared or blocking):  # who holds it matters to those it refuses
            self._pid_file().write_text(str(os.getpid()), encoding="ascii")
        self._lock = lock

    def release(self) -> None:
        if self._lock is not None:
            lock, self._lock = self._lock, None
            lock.close()  # ends the SQLite transaction that holds the lock

    @contextmanager
    def held(self, shared: bool = False) -> Iterator[None]:
        """Hold the lock for a ``with`` block, waiting for it if another process has it."""
        self.acquire(shared=shared, blocking=True)
        try:
            yield
        finally:
            self.release()

    def _pid_file(self) -> Path:
        return self.path.with_name(self.path.name + ".pid")


def writable(folder: Path) -> bool:
    """Whether files can be created in ``folder`` (not on a read-only file system, and
    permitted; root is permitted everywhere but on a read-only mount)."""
    try:
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return False
    except (AttributeError, OSError):  # no statvfs (Windows), or no folder yet
        pass
    return not folder.exists() or os.access(folder, os.W_OK)


def _read_holder(pid_file: Path) -> str:
    try:
        return pid_file.read_text(encoding="ascii", errors="replace").strip() or "unknown"
    except OSError:
        return "unknown"


class SnapshotLock:
    """Between processes: readers load the persisted index under a shared lock, the writer
    makes a write durable under an exclusive one, so a reader never loads half a write.

    Writer-preferring: the writer first takes ``intent.lock``, which new readers pass
    through, so a stream of readers cannot keep it waiting forever.
    """

    def __init__(self, index_dir: Path) -> None:
        self._state = ProcessLock(index_dir / "state.lock")
        self._intent = ProcessLock(index_dir / "intent.lock")

    @contextmanager
    def reading(self) -> Iterator[None]:
        with self._intent.held(shared=True):
            self._state.acquire(shared=True, blocking=True)
        try:
            yield
        finally:
            self._state.release()

    @contextmanager
    def writing(self) -> Iterator[None]:
        with self._intent.held():
            self._state.acquire(blocking=True)
        try:
            yield
        finally:
            self._state.release()
