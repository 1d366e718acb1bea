"""atomic_write: all or nothing, and durable once it returns (the rename too)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ragloom import atomic
from ragloom.atomic import atomic_write


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="names descriptors through /proc")
def test_the_folder_is_fsynced_after_the_rename(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A rename lives in the folder's entry list: without an fsync of the folder a power
    loss may bring back the old file. Record what is fsynced, in order."""
    events: list[tuple[str, str]] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(descriptor: int) -> None:
        events.append(("fsync", os.readlink(f"/proc/self/fd/{descriptor}")))
        real_fsync(descriptor)

    def replace(source: os.PathLike[str], target: os.PathLike[str]) -> None:
        events.append(("replace", str(target)))
        real_replace(source, target)

    monkeypatch.setattr(atomic.os, "fsync", fsync)
    monkeypatch.setattr(atomic.os, "replace", replace)
    target = tmp_path / "segments.json"
    with atomic_write(target) as handle:
        handle.write(b"{}")
    assert target.read_bytes() == b"{}"
    kinds = [kind for kind, _ in events]
    assert kinds == ["fsync", "replace", "fsync"]
    assert events[-1][1] == str(tmp_path)  # the folder, after the rename


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "manifest.json"
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError):
        with atomic_write(target) as handle:
            handle.write(b"half")
            raise RuntimeError("disk full")
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["manifest.json"]
