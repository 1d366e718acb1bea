"""Keeping an index in step with its folders: which folders were indexed (remembered in
the manifest), ``sync`` to bring them up to date, and auto-sync doing that on a timer."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from ragloom.config import RAGConfig
from ragloom.errors import RagloomError
from ragloom.indexing.autosync import AutoSync
from ragloom.indexing.discovery import relative_posix
from ragloom.indexing.manifest import ManifestStore
from ragloom.types import IndexReport


class SyncMethods:
    """``sync``, ``start_auto_sync`` and ``stop_auto_sync`` of RAGEngine."""

    config: RAGConfig
    base_dir: Path
    _manifest: ManifestStore
    _auto_sync: AutoSync | None
    _require_enabled: Callable[[], None]  # RAGEngine's
    index_directory: Callable[[Path], IndexReport]

    def start_auto_sync(self, interval_s: float | None = None) -> None:
        """Re-index the indexed folders every ``interval_s`` seconds (default: the config's
        ``auto_sync_interval_seconds``, else 30) on a background thread."""
        self._require_enabled()
        if self._auto_sync is not None and self._auto_sync.state.running:
            raise RagloomError("auto-sync is already running; call stop_auto_sync() first")
        interval = interval_s or self.config.auto_sync_interval_seconds or 30.0
        self._auto_sync = AutoSync(self.sync, interval)
        self._auto_sync.start()

    def stop_auto_sync(self) -> None:
        """Stop the background sync, waiting for a sync in progress to finish."""
        if self._auto_sync is not None:
            self._auto_sync.stop()

    def sync(self) -> IndexReport:
        """Bring every folder indexed so far up to date (what auto-sync runs each interval)."""
        total = IndexReport()
        for root in self._roots():
            if root.is_dir():
                total.merge(self.index_directory(root))
        return total

    def _roots(self) -> list[Path]:
        """The folders indexed so far (base_dir when none was)."""
        saved = json.loads(self._manifest.get_setting("roots") or "[]")
        return [self.base_dir / root for root in saved] or [self.base_dir]

    def _remember_root(self, root: Path) -> None:
        relative = relative_posix(root, self.base_dir)
        saved: list[str] = json.loads(self._manifest.get_setting("roots") or "[]")
        if relative not in saved:
            self._manifest.set_setting("roots", json.dumps(sorted([*saved, relative])))
