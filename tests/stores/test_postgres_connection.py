"""The Postgres connection keeps a transaction's writes on the connection that began them:
a transaction whose connection ended is a clear error at commit, never a COMMIT on a new
connection that reports success for writes that are gone; an idle session the server only
sent a notification is kept (with what it set), not reconnected."""

from __future__ import annotations

import select
import time
from typing import Any

import pytest

from ragloom import StoreError
from ragloom.stores.postgres.connection import Database


def _readable(database: Database) -> None:
    """Wait until the server has sent the session something (it does so at once here)."""
    deadline = time.monotonic() + 30
    while not select.select([database.connection().fileno()], [], [], 0.1)[0]:
        assert time.monotonic() < deadline, "the server sent nothing"


def test_a_transaction_whose_connection_ended_fails_at_commit_and_wrote_nothing(
        postgres_server: Any, postgres_schema: str) -> None:
    database = Database(postgres_server.url, "ragloom test lost-commit")
    database.begin()
    database.execute("create", f'CREATE TABLE "{postgres_schema}".lost (id int)')
    pid = database.execute("pid", "SELECT pg_backend_pid()")[0][0]
    assert postgres_server.execute(f"SELECT pg_terminate_backend({pid})") == [(True,)]
    deadline = time.monotonic() + 30
    while postgres_server.execute(f"SELECT count(*) FROM pg_stat_activity WHERE pid = {pid}") != [(0,)]:
        assert time.monotonic() < deadline
    with pytest.raises(StoreError, match="commit failed on Postgres"):
        database.commit()
    assert postgres_server.execute(f"SELECT to_regclass('\"{postgres_schema}\".lost')") == [(None,)]
    assert database.execute("after", "SELECT 1") == [(1,)]  # the next call connects again
    database.close()


def test_an_idle_session_that_was_sent_a_notification_is_kept(postgres_server: Any) -> None:
    database = Database(postgres_server.url, "ragloom test notified")
    database.execute("listen", "LISTEN ragloom_test")
    pid = database.execute("pid", "SELECT pg_backend_pid()")[0][0]
    postgres_server.execute("NOTIFY ragloom_test")
    _readable(database)
    assert database.execute("pid", "SELECT pg_backend_pid()") == [(pid,)]
    database.close()
