"""Auto-sync: changed files re-indexed, deleted ones removed, prompt stop, status."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from helpers import hash_config, write
from ragloom import RAGEngine, RagloomError


def wait_for(condition, timeout: float = 120.0) -> bool:
    """Poll until ``condition()`` holds; the timeout only bounds a hung test."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def test_auto_sync_follows_the_tree(tmp_path: Path) -> None:
    write(tmp_path, "docs/a.md", "# A\nalpha\n")
    with RAGEngine(hash_config(), tmp_path) as engine:
        engine.index_directory("docs")
        engine.start_auto_sync(0.1)
        with pytest.raises(RagloomError, match="already running"):
            engine.start_auto_sync(0.1)
        write(tmp_path, "docs/b.md", "# B\nbravo\n")
        assert wait_for(lambda: "docs/b.md" in engine.get_all_indexed_paths())
        (tmp_path / "docs/a.md").unlink()
        assert wait_for(lambda: "docs/a.md" not in engine.get_all_indexed_paths())
        write(tmp_path, "outside.md", "# not under an indexed folder\n")
        assert wait_for(lambda: engine.status().files_pending == 0)  # a sync may be mid-write
        # A sync counts once it returns, which can be after its files show as indexed.
        assert wait_for(lambda: engine.status().auto_sync["syncs"] >= 2)
        status = engine.status()
        assert status.auto_sync["running"]
        assert status.auto_sync["last_sync_at"] is not None
        engine.stop_auto_sync()
        assert engine._auto_sync is not None and not engine._auto_sync.alive
        assert not engine.status().auto_sync["running"]
        write(tmp_path, "docs/c.md", "# C\ncharlie\n")
        assert engine.status().files_pending == 1
        assert "docs/c.md" not in engine.get_all_indexed_paths()  # no thread left to index it
        assert "outside.md" not in engine.get_all_indexed_paths()


def test_auto_sync_from_config_and_close_stops_it(tmp_path: Path) -> None:
    write(tmp_path, "a.txt", "one\n")
    engine = RAGEngine(hash_config(auto_sync_interval_seconds=0.1), tmp_path)
    write(tmp_path, "b.txt", "two\n")
    assert wait_for(lambda: set(engine.get_all_indexed_paths()) == {"a.txt", "b.txt"})
    engine.close()
    assert engine._auto_sync is not None and not engine._auto_sync.state.running


def test_stop_interrupts_a_long_interval(tmp_path: Path) -> None:
    """The thread waits on an event, so stopping does not wait out the interval (an hour here:
    a sleeping thread would still be alive after stop's join)."""
    write(tmp_path, "a.txt", "one\n")
    with RAGEngine(hash_config(), tmp_path) as engine:
        engine.start_auto_sync(3600)
        engine.stop_auto_sync()
        assert engine._auto_sync is not None and not engine._auto_sync.alive
