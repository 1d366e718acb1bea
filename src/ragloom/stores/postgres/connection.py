"""One connection to the index's database: opened lazily, reopened after the server went
away, errors turned into StoreError naming the URL without its password.

A writer's index changes span several calls (``begin`` ... ``commit``: the journal, the
chunks, the BM25 postings and the manifest records of a window of files), so they run in
one transaction on one connection; a crash or a dropped connection rolls it all back.
"""

from __future__ import annotations

import os
import select
import socket
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from ragloom._optional import import_optional
from ragloom.errors import StoreError
from ragloom.stores.base import DataRejectedError
from ragloom.stores.postgres.settings import redacted

#: Appends the schemas of the extensions ragloom names unqualified (pgvector's type and
#: operators, pg_textsearch's) to this session's search_path when they are not on it.
_EXTENSIONS_ON_PATH = """
SELECT set_config('search_path', concat_ws(', ', nullif(current_setting('search_path'), ''),
                  string_agg(DISTINCT quote_ident(n.nspname), ', ')), false)
FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
WHERE e.extname IN ('vector', 'pg_textsearch') AND n.nspname <> ALL(current_schemas(false))
HAVING count(*) > 0
"""


def psycopg() -> Any:
    return import_optional("psycopg", "postgres", "the Postgres vector store")


class Database:
    """A lazily (re)opened psycopg connection in autocommit mode, used by one thread at a time."""

    def __init__(self, url: str, application_name: str = "ragloom",
                 settings: Sequence[tuple[str, str]] = ()) -> None:
        self.url = url
        self.settings = list(settings)  # (name, value) set on each new session when known
        self.where = redacted(url)
        self.application_name = application_name
        self.lock = threading.RLock()
        self._connection: Any = None
        self._in_transaction = False
        self._vector_registered = False
        #: Session settings as last set on the open connection (emptied on reconnect).
        self.session: dict[str, str] = {}

    def connection(self) -> Any:
        with self.lock:
            if self._connection is not None and self._connection.closed and self._in_transaction:
                # What the transaction wrote is gone; its next statement must not run alone.
                self._drop()
                raise StoreError(f"the connection to Postgres at {self.where} ended in the "
                                 f"middle of a transaction; nothing of it was written")
            if self._connection is not None and (self._connection.closed or self._went_away()):
                self._drop()
            if self._connection is None:
                pg = psycopg()
                import_optional("pgvector", "postgres", "the Postgres vector store")
                try:
                    self._connection = pg.connect(self.url, autocommit=True,
                                                  application_name=self.application_name)
                except pg.Error as exc:
                    raise StoreError(f"cannot connect to Postgres at {self.where}: "
                                     f"{_first_line(exc)}") from None
                self._vector_registered = False
                self._in_transaction = False
                self._apply_settings()
            if not self._vector_registered:
                self._register_vector()
            return self._connection

    def _went_away(self) -> bool:
        """Whether the server ended this idle session (a restart, an administrator), so the
        next call reconnects instead of failing: its socket then holds the server's goodbye
        (an error message, then end of file). Anything else the server sends an idle session
        (a notice, a parameter's new value, a notification) is left for psycopg to read:
        the session and what it set stay. Checked without a round trip."""
        if self._in_transaction:
            return False
        try:
            descriptor = self._connection.fileno()
            ready, _, _ = select.select([descriptor], [], [], 0)
            if not ready:
                return False
            with socket.socket(fileno=os.dup(descriptor)) as peek:
                first = peek.recv(1, socket.MSG_PEEK)
        except (OSError, ValueError):
            return True
        return first in (b"", b"E")  # end of file, or an ErrorResponse (FATAL) before it

    def _apply_settings(self) -> None:
        """The extensions' schemas on the session's search path (pgvector or pg_textsearch
        installed in a schema of their own, or a role or database whose search_path leaves
        it out: their types and operators are named unqualified), then session settings
        (HNSW search width, iterative scans) the server knows; one it does not (an older
        pgvector) is left at its default."""
        self.session = {}
        try:
            with self._connection.transaction():
                self._connection.execute(_EXTENSIONS_ON_PATH)
        except psycopg().Error:
            pass  # the statements that need it then fail naming what is missing
        for name, value in self.settings:
            try:
                with self._connection.transaction():
                    self._connection.execute("SELECT set_config(%s, %s, false)", (name, value))
                self.session[name] = value
            except psycopg().Error:
                pass

    def _register_vector(self) -> None:
        from pgvector.psycopg import register_vector

        try:
            register_vector(self._connection)
            self._vector_registered = True
        except Exception:  # the extension is not created yet: create_statements does it
            self._vector_registered = False

    def refresh_types(self) -> None:
        with self.lock:
            if self._connection is not None:
                self._register_vector()

    @contextmanager
    def cursor(self, what: str) -> Iterator[Any]:
        """A cursor; a failure becomes StoreError("<what> failed on Postgres at <url>: ...")
        and a broken connection is dropped, so the next call connects again."""
        pg = psycopg()
        with self.lock:
            connection = self.connection()
            try:
                with connection.cursor() as cursor:
                    yield cursor
            except (pg.Error, UnicodeEncodeError) as exc:
                rejected = isinstance(exc, (UnicodeEncodeError, pg.DataError,
                                            pg.errors.ProgramLimitExceeded))
                broken = connection.closed or (isinstance(exc, pg.OperationalError) and not rejected)
                if self._in_transaction:
                    self._abandon(connection)
                if broken:
                    self._drop()
                error = DataRejectedError if rejected else StoreError
                raise error(f"{what} failed on Postgres at {self.where}: "
                            f"{_first_line(exc)}") from None

    def execute(self, what: str, sql: str,
                params: Sequence[Any] | Mapping[str, Any] | None = None) -> list[tuple[Any, ...]]:
        """Run one statement; its rows (``[]`` when it returns none)."""
        with self.cursor(what) as cursor:
            cursor.execute(sql, params)
            return cursor.fetchall() if cursor.description is not None else []

    # -- a transaction spanning calls -------------------------------------------------------

    def begin(self, statement: str = "BEGIN") -> list[tuple[Any, ...]]:
        """Start the transaction the next statements join (a no-op when one is open).
        ``statement`` may name an isolation level and go on with more statements (no
        parameters) in the same round trip: the rows of the last that returns any."""
        with self.lock:
            if self._in_transaction:
                return []
            self.connection()  # (re)connecting first: a new connection starts outside one
            self._in_transaction = True  # a failure part way rolls back what began
            with self.cursor("begin") as cursor:
                cursor.execute(statement)
                while cursor.description is None and cursor.nextset():
                    pass
                return cursor.fetchall() if cursor.description is not None else []

    def commit(self) -> None:
        """Commit the open transaction on the connection that began it. A transaction the
        server no longer holds (its connection ended, or it was rolled back) is a StoreError:
        never a COMMIT on a new connection that reports success for writes that are gone."""
        with self.lock:
            if not self._in_transaction:
                return
            connection = self._connection
            # libpq answers UNKNOWN for a closed connection, so this covers that case too
            if connection is None or (
                    connection.info.transaction_status != psycopg().pq.TransactionStatus.INTRANS):
                self._abandon(connection)
                self._drop()
                raise StoreError(f"commit failed on Postgres at {self.where}: the transaction "
                                 f"was lost before it was committed (its connection ended or "
                                 f"it was rolled back); nothing of it was written")
            self.execute("commit", "COMMIT")
            self._in_transaction = False

    def rollback(self) -> None:
        with self.lock:
            if self._in_transaction:
                self._abandon(self._connection)

    @contextmanager
    def transaction(self, what: str) -> Iterator[None]:
        """Writes that must land together: joined to an open ``begin``, else their own."""
        with self.lock:
            if self._in_transaction:
                yield
                return
            self.begin()
            try:
                yield
            except BaseException:
                self.rollback()
                raise
            self.commit()

    def _abandon(self, connection: Any) -> None:
        self._in_transaction = False
        self.session = {}  # settings changed inside the transaction are undone: set them again
        if connection is not None and not connection.closed:
            try:
                connection.execute("ROLLBACK")
            except Exception:
                self._drop()

    def _drop(self) -> None:
        connection, self._connection = self._connection, None
        self._in_transaction = False
        if connection is not None:
            try:
                connection.close()
            except Exception:
                pass

    def close(self) -> None:
        with self.lock:
            if self._in_transaction:
                self._abandon(self._connection)
            self._drop()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"
