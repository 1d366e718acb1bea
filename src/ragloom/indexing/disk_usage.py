"""Where an index's bytes go: the store, the BM25 index, the manifest, the embedding cache
and anything else in the index folder (locks, markers), for ``ragloom status``; and how
status names a store's server."""

from __future__ import annotations

from pathlib import Path

from ragloom.layout import part_of

PARTS = ("store", "bm25", "manifest", "embedding_cache", "other")


def disk_usage(index_dir: Path, store_dir: Path | None) -> dict[str, int]:
    """Bytes on disk per part (``PARTS``); the store's folder may lie outside ``index_dir``."""
    usage = dict.fromkeys(PARTS, 0)
    folders = [index_dir] + ([store_dir] if store_dir is not None and not _inside(store_dir, index_dir)
                             else [])
    for folder in folders:
        if not folder.is_dir():
            continue
        for file in folder.rglob("*"):
            if file.is_file():
                usage[_part(file, index_dir, store_dir)] += file.stat().st_size
    return usage


def server_name(url: str) -> str:
    """A store server's URL as ``status`` shows it: password, ``password=`` and any token
    ragloom's secret detection knows replaced."""
    from ragloom.security import redact_secrets
    from ragloom.stores.postgres.settings import redacted

    return redact_secrets(redacted(url)).text


def _part(file: Path, index_dir: Path, store_dir: Path | None) -> str:
    if store_dir is not None and _inside(file, store_dir):
        return "store"
    return part_of(file.relative_to(index_dir).parts[0])


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents
