"""Locks: a readers-writer lock inside a process, and an index lock between processes."""

from __future__ import annotations

import errno
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

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
    """An ``flock`` on a file in the index folder, between processes.

    The writer of an index holds ``<index_dir>/lock`` exclusively while its engine is open
    (the file names its pid, so a second writer gets a clear IndexLockedError). A reader
    never creates anything: where the lock file cannot be created (a read-only folder or
    file system: a container image, a shared mount) it locks the file it finds read-only,
    and where there is none, no writer can be there either and it reads without a lock.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._handle: int | None = None

    def acquire(self, shared: bool = False, blocking: bool = False) -> None:
        """Take the lock (``shared`` for readers); without ``blocking``, a lock held by
        another process raises IndexLockedError naming it."""
        import fcntl

        if shared:
            handle = self._open_for_reading()
            if handle is None:
                return
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            handle = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        mode = fcntl.LOCK_SH if shared else fcntl.LOCK_EX
        try:
            fcntl.flock(handle, mode if blocking else mode | fcntl.LOCK_NB)
        except OSError as exc:
            holder = os.pread(handle, 64, 0).decode("ascii", "replace").strip() or "unknown"
            os.close(handle)
            if exc.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                raise IndexLockedError(
                    f"index at {self.path.parent} is locked by pid {holder}"
                    f"{'' if shared else ' (or by processes reading it)'}; close that engine "
                    f"first or use a Chroma server (vector_store.url) to share an index") from None
            raise
        if not shared:
            os.ftruncate(handle, 0)
            os.pwrite(handle, str(os.getpid()).encode("ascii"), 0)
        self._handle = handle

    def _open_for_reading(self) -> int | None:
        """The lock file for a shared lock, created if the folder allows it, else opened
        read-only (flock works on it); None when it neither exists nor can be created."""
        try:
            return os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            if exc.errno not in (errno.EROFS, errno.EACCES, errno.EPERM):
                raise
        try:
            return os.open(self.path, os.O_RDONLY)
        except FileNotFoundError:
            return None

    def release(self) -> None:
        if self._handle is not None:
            os.close(self._handle)  # closing drops the flock
            self._handle = None

    @contextmanager
    def held(self, shared: bool = False) -> Iterator[None]:
        """Hold the lock for a ``with`` block, waiting for it if another process has it."""
        self.acquire(shared=shared, blocking=True)
        try:
            yield
        finally:
            self.release()


class SnapshotLock:
    """Between processes: readers load the persisted index under a shared lock, the writer
    makes a write durable under an exclusive one, so a reader never loads half a write.

    Writer-preferring: the writer first takes ``intent.lock``, which new readers pass
    through, so a stream of readers cannot keep it waiting forever (plain flock would).
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
