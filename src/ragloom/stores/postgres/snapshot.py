"""One search, one snapshot: a hybrid search reads on two connections at once (the dense
query on one, BM25 on the other) and then loads what it found. Each statement in
autocommit sees the newest committed data, so without care one search could see a file's
old chunks through one connection and its new chunks through the other. Inside
``shared_snapshot`` both connections run a REPEATABLE READ, READ ONLY transaction on the
same snapshot (``pg_export_snapshot`` on the first, ``SET TRANSACTION SNAPSHOT`` on the
second): every read of the search sees one committed version of the index."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from ragloom.errors import StoreError
from ragloom.stores.postgres.connection import Database

_MODE = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
_SNAPSHOT_ID = re.compile(r"^[0-9A-F]+-[0-9A-F]+-[0-9]+$")


class SharedSnapshot:
    """Opens the shared snapshot of ``first`` and ``second`` around one search at a time
    (searches from several threads of a process take turns; a nested one joins)."""

    def __init__(self, first: Database, second: Database) -> None:
        self.first, self.second = first, second
        self._turn = threading.RLock()
        self._depth = 0

    @contextmanager
    def __call__(self) -> Iterator[None]:
        with self._turn:
            self._depth += 1
            try:
                if self._depth > 1:
                    yield
                    return
                self._open()
                try:
                    yield
                except BaseException:
                    self.first.rollback()
                    self.second.rollback()
                    raise
                self.second.commit()
                self.first.commit()
            finally:
                self._depth -= 1

    def _open(self) -> None:
        """Both transactions on one snapshot, in one round trip per connection."""
        first, second = self.first, self.second
        try:
            snapshot = str(first.begin(f"{_MODE}; SELECT pg_export_snapshot()")[0][0])
            if not _SNAPSHOT_ID.match(snapshot):
                raise StoreError(f"search failed on Postgres at {first.where}: unexpected "
                                 f"snapshot id {snapshot!r}")
            second.begin(f"{_MODE}; SET TRANSACTION SNAPSHOT '{snapshot}'")
        except BaseException:
            second.rollback()
            first.rollback()
            raise
