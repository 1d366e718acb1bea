"""The manifest: a damaged file is named with what to do, and set aside only on purpose."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ragloom.errors import CorruptIndexError
from ragloom.indexing.manifest import FileRecord, Manifest


def build(path: Path, files: int = 400) -> None:
    manifest = Manifest(path)
    manifest.write([FileRecord(f"src/file_{i}.py", 10 * i, i, f"{i:064x}", (f"c{i}",), 1.0)
                    for i in range(files)])
    manifest.set_setting("embedding", "[\"hash\", \"feature-hash-v1\", 384]")
    manifest.close()


@pytest.mark.parametrize("damage", ["truncated", "garbage", "zeroed-pages"])
def test_a_damaged_manifest_is_named_with_the_rebuild(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "manifest_turboquant_ragloom.sqlite"
    build(path)
    data = path.read_bytes()
    if damage == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "garbage":
        path.write_bytes(b"\x00garbage" * 1000)
    else:
        path.write_bytes(data[:8192] + b"\x00" * (len(data) - 8192))
    for read_only in (True, False):
        with pytest.raises(CorruptIndexError, match=rf"manifest {re.escape(str(path))} is damaged "
                           r".*ragloom index --rebuild") as refused:
            Manifest(path, read_only=read_only)
        assert (refused.value.discard is None) is read_only
    assert path.read_bytes() != data  # nothing was changed by refusing
    assert refused.value.discard is not None
    refused.value.discard()  # a rebuild on purpose: set aside, never deleted
    aside = [p for p in tmp_path.iterdir() if ".corrupt-" in p.name]
    assert {p.name.split(".corrupt-")[0] for p in aside} == {path.name}  # with its WAL files
    fresh = Manifest(path)
    assert len(fresh) == 0
    fresh.close()


def test_a_sound_manifest_opens_for_reading_and_writing(tmp_path: Path) -> None:
    path = tmp_path / "manifest.sqlite"
    build(path, files=3)
    for read_only in (True, False):
        manifest = Manifest(path, read_only=read_only)
        assert len(manifest) == 3
        manifest.close()
