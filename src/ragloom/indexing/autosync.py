"""A background thread that keeps an index in step with its folders by polling."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from ragloom.types import IndexReport

logger = logging.getLogger("ragloom")


@dataclass
class SyncState:
    """What the last sync did, for ``status()``."""

    running: bool = False
    interval_seconds: float | None = None
    last_sync_at: float | None = None
    last_files_indexed: int = 0
    last_files_removed: int = 0
    last_error: str | None = None
    syncs: int = 0


class AutoSync:
    """Calls ``sync`` every ``interval`` seconds on a daemon thread until stopped. A tick
    that finds the previous sync (or any other sync) still running is skipped."""

    def __init__(self, sync: Callable[[], IndexReport], interval: float) -> None:
        if interval <= 0:
            raise ValueError(f"auto-sync interval must be positive, got {interval}")
        self._sync = sync
        self.interval = interval
        self.state = SyncState(interval_seconds=interval)
        self._stop = threading.Event()
        self._busy = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="ragloom-autosync", daemon=True)

    def start(self) -> None:
        self.state.running = True
        self._thread.start()

    def stop(self, timeout: float | None = 30.0) -> None:
        """Ask the thread to stop and wait for the sync in progress, if any, to finish."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout)
        self.state.running = self.alive

    @property
    def alive(self) -> bool:
        """Whether the background thread is still running."""
        return self._thread.is_alive()

    def run_once(self) -> IndexReport | None:
        """One sync now, unless one is already running (then None)."""
        if not self._busy.acquire(blocking=False):
            return None
        try:
            report = self._sync()
        except Exception as exc:  # keep the thread alive; say what went wrong
            self.state.last_error = f"{type(exc).__name__}: {exc}"
            logger.warning("auto-sync failed: %s", self.state.last_error)
            return None
        finally:
            self._busy.release()
        self.state.last_sync_at = time.time()
        self.state.last_files_indexed = report.files_indexed
        self.state.last_files_removed = report.files_removed
        self.state.last_error = None
        self.state.syncs += 1
        return report

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.run_once()
